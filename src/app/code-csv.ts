import { parse, type Parser } from 'csv-parse';

/** A CSV record (line) longer than this is not a list of codes: the parse stops with an error. */
const csvRecordBytesMax = 64 * 1024;

/**
 * A streaming parser for a file of codes (the HTTP upload and `ticketrush import codes` alike):
 * a BOM and blank lines ignored, any of CRLF, LF or CR ending a line, cells trimmed.
 */
export function codesCsvParser(): Parser {
  return parse({ bom: true, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: true, trim: true, max_record_size: csvRecordBytesMax });
}

/**
 * The codes of parsed CSV records: one code a line, or a table with a `code` column (found in
 * the first line, any case), whose other columns are ignored.
 */
export async function* codesOfCsv(records: AsyncIterable<string[]>): AsyncGenerator<string> {
  let column: number | null = null;
  for await (const record of records) {
    if (column === null) {
      const header = record.findIndex((cell) => cell.trim().toLowerCase() === 'code');
      column = header >= 0 ? header : 0;
      if (header >= 0) continue;
    }
    yield record[column] ?? '';
  }
}

import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';

const dayMs = 86_400_000;

/** What an organizer gives when creating a code pool (times in epoch ms). */
export interface CodePoolDraft {
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
}

/** A pool's rules: a title, a sale window that ends after it starts and lasts at most showDurationDaysMax. */
export function checkCodePool(draft: CodePoolDraft): Result<CodePoolDraft> {
  const title = draft.title.trim();
  if (title.length === 0 || title.length > limits.titleLengthMax) return fail('INVALID_CAMPAIGN', `the title must be 1 to ${limits.titleLengthMax} characters`);
  if (!Number.isFinite(draft.saleStartsAt) || !Number.isFinite(draft.saleEndsAt)) return fail('INVALID_CAMPAIGN', 'times must be valid ISO 8601 instants');
  if (draft.saleStartsAt >= draft.saleEndsAt) return fail('INVALID_CAMPAIGN', 'saleStartsAt must be before saleEndsAt');
  if (draft.saleEndsAt - draft.saleStartsAt > limits.showDurationDaysMax * dayMs) {
    return fail('INVALID_CAMPAIGN', `a sale may last at most ${limits.showDurationDaysMax} days`);
  }
  return ok({ ...draft, title });
}

/** Longest code a pool stores (issue 23: longer ones are rejected and counted, never stored). */
export const codeLengthMax = 128;

/** C0 and C1 controls and DEL: never part of a code (a stray one would break a CSV or a screen). */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

export type CodeVerdict = 'ok' | 'blank' | 'rejected';

/**
 * One imported code, already trimmed of surrounding spaces: `blank` (an empty line, skipped and not
 * counted), `rejected` (too long, or a control character inside), else `ok`.
 */
export function judgeCode(code: string): CodeVerdict {
  if (code.length === 0) return 'blank';
  // Characters, as the stores count them (length() / char_length()), not UTF-16 units.
  if ((code.length > codeLengthMax && [...code].length > codeLengthMax) || controlCharacters.test(code)) return 'rejected';
  return 'ok';
}

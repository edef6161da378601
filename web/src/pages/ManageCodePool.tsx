import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { CodePool, ImportCounts } from '../code-pools';
import { CsvDownload } from '../CsvDownload';
import { errorText } from '../errors';
import { dateTime } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { role, session } from '../session';

/** Organizer: a code pool's figures, importing codes from a CSV file, and the winners export. */
export function ManageCodePool({ poolId }: { poolId: string }) {
  const pool = useLoad(() => api<CodePool>(`/code-pools/${encodeURIComponent(poolId)}`), [poolId]);
  const [file, setFile] = useState<File | null>(null);
  const [counts, setCounts] = useState<ImportCounts | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  const upload = async (event: Event) => {
    event.preventDefault();
    if (file === null) return;
    setBusy(true);
    setError(null);
    setCounts(null);
    try {
      // The file goes as it is (text/csv): the server parses it as it arrives, however large.
      const token = session.value?.token;
      const response = await fetch(`/api/v1/admin/code-pools/${encodeURIComponent(poolId)}/codes`, {
        method: 'POST', body: file, headers: { 'content-type': 'text/csv', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      });
      const body = (await response.json().catch(() => ({}))) as ImportCounts & { code?: string; message?: string; details?: Record<string, unknown> };
      if (!response.ok) throw new ApiError(response.status, body.code ?? `HTTP_${response.status}`, body.message ?? response.statusText, body.details);
      setCounts(body);
      pool.reload();
    } catch (e) {
      // A file the server could not parse: which line, in the page's words, then the server's own
      // message (it names the parser's reason) for whoever fixes the file.
      const line = e instanceof ApiError && e.code === 'BAD_REQUEST' ? e.details?.line : undefined;
      setError(typeof line === 'number' && e instanceof ApiError
        ? `${t('codesCsvBadLine', { line, imported: typeof e.details?.imported === 'number' ? e.details.imported : 0 })} (${e.message})`
        : errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <h1>{pool.data?.title ?? t('codePool')}</h1>
      <p class="row"><a href="/admin">{t('organizerTitle')}</a> <a href={`/codes/${encodeURIComponent(poolId)}`} data-testid="buyer-page">{t('buyerPage')}</a></p>
      {pool.error !== null && <p role="alert">{pool.error}</p>}
      {pool.data !== null && (
        <>
          <p class="muted">{dateTime(pool.data.saleStartsAt)} – {dateTime(pool.data.saleEndsAt)}</p>
          <p data-testid="pool-figures">{t('poolFigures', { imported: pool.data.imported, remaining: pool.data.remaining })}</p>
        </>
      )}
      <form onSubmit={(e) => void upload(e)} data-testid="import-codes">
        <label for="codes-file">{t('codesFile')}</label>
        <input id="codes-file" type="file" accept=".csv,.txt,text/csv,text/plain" required onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} />
        <p class="muted">{t('codesFileHint')}</p>
        <p><button type="submit" class="primary" disabled={busy || file === null}>{t('importCodes')}</button></p>
      </form>
      {counts !== null && <p role="status" data-testid="import-result">{t('importResult', { ...counts })}</p>}
      {error !== null && <p role="alert" data-testid="import-error">{error}</p>}
      <h2>{t('exports')}</h2>
      <p><CsvDownload path={`/admin/code-pools/${encodeURIComponent(poolId)}/winners.csv`} filename={`code-pool-${poolId}-winners.csv`} label={t('downloadWinners')} testId="download-winners" /></p>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { errorText } from './errors';
import { downloadWithToken } from './authed-download';

/**
 * A CSV export link for organizers. The API takes a bearer token, not a cookie, so a click fetches
 * the file with the token and saves it from a blob URL; the href is the real address.
 */
export function CsvDownload({ path, filename, label, testId }: { path: string; filename: string; label: string; testId: string }) {
  const [state, setState] = useState<'idle' | 'busy' | string>('idle');
  const href = `/api/v1${path}`;
  const download = async (event: MouseEvent) => {
    event.preventDefault();
    if (state === 'busy') return;
    setState('busy');
    try {
      await downloadWithToken(href, filename);
      setState('idle');
    } catch (e) {
      setState(errorText(e));
    }
  };
  return (
    <span>
      <a class="button" href={href} download={filename} onClick={(e) => void download(e)} aria-busy={state === 'busy'} data-testid={testId}>{label}</a>
      {state !== 'idle' && state !== 'busy' && <span role="alert"> {state}</span>}
    </span>
  );
}

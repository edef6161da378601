import { useState } from 'preact/hooks';
import { ApiError, type ShowSection } from '../api';
import { t } from '../i18n';
import { fetchAttendees, type AttendeeRow } from './attendees-api';
import { placeName } from './place';

/** Results one search shows; a name that matches more is narrowed by typing more of it. */
const resultsMax = 10;

/**
 * When a QR will not scan: find the attendee by the start of their username or the code on their
 * ticket, and admit from the result (the same check-in, by code, as typing it).
 */
export function AttendeeSearch({ showId, sections, onAdmit }: { showId: string; sections: readonly ShowSection[]; onAdmit: (code: string) => Promise<void> }) {
  const [q, setQ] = useState('');
  const [rows, setRows] = useState<AttendeeRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const search = async () => {
    setError(null);
    try {
      setRows(await fetchAttendees(showId, q.trim(), resultsMax, 0));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };
  const admit = async (row: AttendeeRow) => {
    await onAdmit(row.code);
    await search();
  };

  return (
    <section class="door-search" aria-labelledby="door-search-title">
      <h2 id="door-search-title">{t('doorSearchTitle')}</h2>
      <form class="row" onSubmit={(e) => { e.preventDefault(); void search(); }}>
        <label for="door-search-q">{t('doorSearchLabel')}</label>
        <input id="door-search-q" value={q} maxLength={64} autocomplete="off" data-testid="door-search-q" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        <button type="submit" data-testid="door-search">{t('doorSearch')}</button>
      </form>
      {error !== null && <p role="alert">{error}</p>}
      {rows !== null && rows.length === 0 && <p role="status">{t('doorSearchNone')}</p>}
      {rows !== null && rows.length > 0 && (
        <ul class="door-results" data-testid="door-results">
          {rows.map((row) => {
            const place = placeName(sections, row.sectionId, row.seatId);
            return (
              <li key={row.ticketId}>
                <span><strong>{row.username}</strong> · {place} · <span class="mono">{row.code}</span></span>
                {row.status === 'VALID'
                  ? <button type="button" class="primary" aria-label={t('doorAdmitWho', { name: row.username, place })} onClick={() => void admit(row)}>{t('doorAdmit')}</button>
                  : <span>{row.status === 'USED' ? t('attendeeCheckedIn') : t('attendeeNoLonger')}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

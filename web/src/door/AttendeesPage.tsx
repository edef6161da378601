import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Show } from '../api';
import { t } from '../i18n';
import { role } from '../session';
import { fetchAttendees, type AttendeeRow } from './attendees-api';
import { placeName } from './place';
import './door.css';

const pageSize = 50;

/** The organizer's attendee list of one show: buyer, seat, order, code, checked in or not; searched and paged. */
export function AttendeesPage({ showId }: { showId: string }) {
  const [show, setShow] = useState<Show | null>(null);
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<AttendeeRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const allowed = role.value === 'STAFF' || role.value === 'ADMIN';

  useEffect(() => {
    if (allowed) void api<Show>(`/shows/${encodeURIComponent(showId)}`).then(setShow, () => undefined);
  }, [showId, allowed]);
  useEffect(() => {
    if (!allowed) return;
    let alive = true;
    setError(null);
    // One more than a page tells whether a next page exists.
    fetchAttendees(showId, query, pageSize + 1, offset).then(
      (r) => alive && setRows(r),
      (e: unknown) => alive && setError(e instanceof ApiError ? e.message : String(e)),
    );
    return () => {
      alive = false;
    };
  }, [showId, query, offset, allowed]);

  if (!allowed) return <p role="alert">{t('needStaff')}</p>;
  const sections = show?.sections ?? [];
  const visible = rows?.slice(0, pageSize) ?? [];
  const hasNext = (rows?.length ?? 0) > pageSize;
  return (
    <section class="attendees">
      <h1>{t('attendeesTitle', { title: show?.title ?? showId })}</h1>
      <form class="row" role="search" onSubmit={(e) => { e.preventDefault(); setOffset(0); setQuery(q.trim()); }}>
        <label for="attendee-q">{t('doorSearchLabel')}</label>
        <input id="attendee-q" value={q} maxLength={64} autocomplete="off" data-testid="attendee-q" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        <button type="submit" data-testid="attendee-search">{t('doorSearch')}</button>
      </form>
      {error !== null && <p role="alert">{error}</p>}
      {rows === null && error === null && <p role="status">{t('loading')}</p>}
      {rows !== null && visible.length === 0 && <p role="status">{query === '' ? t('attendeesNone') : t('doorSearchNone')}</p>}
      {visible.length > 0 && (
        <table data-testid="attendee-table">
          <thead>
            <tr>
              <th scope="col">{t('attendeeBuyer')}</th>
              <th scope="col">{t('attendeePlace')}</th>
              <th scope="col">{t('attendeeOrder')}</th>
              <th scope="col">{t('attendeeCode')}</th>
              <th scope="col">{t('attendeeStatus')}</th>
            </tr>
          </thead>
          <tbody>
            {visible.map((row) => (
              <tr key={row.ticketId}>
                <td>{row.username}</td>
                <td>{placeName(sections, row.sectionId, row.seatId)}</td>
                <td><a href={`/orders/${encodeURIComponent(row.orderId)}`} class="mono">{row.orderId}</a></td>
                <td class="mono">{row.code}</td>
                <td>{row.status === 'USED' ? t('attendeeCheckedIn') : row.status === 'VALID' ? t('attendeeNotCheckedIn') : t('attendeeNoLonger')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label={t('pageNumber', { n: offset / pageSize + 1 })}>
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>{t('pagePrevious')}</button>
        <span data-testid="attendee-page">{t('pageNumber', { n: offset / pageSize + 1 })}</span>
        <button type="button" disabled={!hasNext} data-testid="attendee-next" onClick={() => setOffset(offset + pageSize)}>{t('pageNext')}</button>
      </nav>
    </section>
  );
}

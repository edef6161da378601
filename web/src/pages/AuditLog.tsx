import { useState } from 'preact/hooks';
import { api } from '../api';
import { actionText, entityText, fieldText, roleText } from '../audit-words';
import { dateTime } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';

interface AuditEntry {
  readonly entryId: string;
  readonly at: string;
  readonly actorId: string;
  readonly actorRole: string;
  /** The actor's username (null: the account is gone; older servers send none). */
  readonly actorName?: string | null;
  readonly action: string;
  readonly entityType: string;
  readonly entityId: string;
  readonly showId: string | null;
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
}

const entityTypes = ['show', 'flash_sale', 'code_pool', 'bargain', 'user', 'webhook', 'order', 'blocklist', 'discount', 'waiting_room'] as const;
const pageSize = 25;

/** The fields that differ between before and after (all of after for a creation, all of before for a removal). */
function changes(e: AuditEntry): { field: string; before: string; after: string }[] {
  const keys = [...new Set([...Object.keys(e.before ?? {}), ...Object.keys(e.after ?? {})])];
  // Instants are stored as epoch ms in fields named ...At: shown as dates.
  const show = (k: string, v: unknown): string =>
    (v === undefined ? '—' : typeof v === 'number' && k.endsWith('At') ? dateTime(new Date(v).toISOString()) : typeof v === 'string' ? v : JSON.stringify(v));
  return keys
    .filter((k) => JSON.stringify(e.before?.[k]) !== JSON.stringify(e.after?.[k]))
    .map((k) => ({ field: k, before: show(k, e.before?.[k]), after: show(k, e.after?.[k]) }));
}

/** Who changed what and when (admins): filters, newest first, a page at a time. */
export function AuditLog() {
  const [filters, setFilters] = useState({ entityType: '', entityId: '', actorId: '' });
  const [draft, setDraft] = useState(filters);
  const [offset, setOffset] = useState(0);
  const loaded = useLoad(async () => {
    const query = new URLSearchParams({ limit: String(pageSize), offset: String(offset) });
    for (const [k, v] of Object.entries(filters)) if (v.trim() !== '') query.set(k, v.trim());
    return api<{ entries: AuditEntry[]; more: boolean }>(`/admin/audit-log?${query.toString()}`);
  }, [JSON.stringify(filters), offset]);
  return (
    <section>
      <h1>{t('auditTitle')}</h1>
      <form class="inline-form" data-testid="audit-filters" onSubmit={(e) => { e.preventDefault(); setOffset(0); setFilters(draft); }}>
        <label>
          {t('auditEntityType')}
          <select value={draft.entityType} onChange={(e) => setDraft({ ...draft, entityType: (e.target as HTMLSelectElement).value })}>
            <option value="">{t('auditAny')}</option>
            {entityTypes.map((type) => <option key={type} value={type}>{entityText(type)}</option>)}
          </select>
        </label>
        <label>
          {t('auditEntityId')}
          <input value={draft.entityId} maxLength={128} onInput={(e) => setDraft({ ...draft, entityId: (e.target as HTMLInputElement).value })} />
        </label>
        <label>
          {t('auditActor')}
          <input value={draft.actorId} maxLength={128} onInput={(e) => setDraft({ ...draft, actorId: (e.target as HTMLInputElement).value })} />
        </label>
        <button type="submit">{t('auditFilter')}</button>
      </form>
      {loaded.error !== null && <p role="alert">{loaded.error}</p>}
      {loaded.error === null && loaded.data === null && <p role="status">{t('loading')}</p>}
      {loaded.data !== null && loaded.data.entries.length === 0 && <p data-testid="audit-empty">{t('auditEmpty')}</p>}
      {loaded.data !== null && loaded.data.entries.length > 0 && (
        <table class="table" data-testid="audit-log">
          <thead>
            <tr><th scope="col">{t('auditWhen')}</th><th scope="col">{t('auditActor')}</th><th scope="col">{t('auditAction')}</th><th scope="col">{t('auditEntity')}</th><th scope="col">{t('auditChange')}</th></tr>
          </thead>
          <tbody>
            {loaded.data.entries.map((e) => (
              <tr key={e.entryId} data-testid="audit-entry">
                <td>{dateTime(e.at)}</td>
                <td data-testid="audit-actor">{e.actorName ?? e.actorId} ({roleText(e.actorRole)})</td>
                <td data-testid="audit-action">{actionText(e.action)}</td>
                <td>{entityText(e.entityType)} <span class="mono">{e.entityId}</span></td>
                <td>
                  <ul class="plain">
                    {changes(e).map((c) => <li key={c.field}>{t('auditFieldChange', { field: fieldText(c.field), before: c.before, after: c.after })}</li>)}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {loaded.data !== null && (offset > 0 || loaded.data.more) && (
        <nav class="pager" aria-label={t('auditTitle')}>
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>{t('pagePrevious')}</button>
          <button type="button" disabled={!loaded.data.more} onClick={() => setOffset(offset + pageSize)}>{t('pageNext')}</button>
        </nav>
      )}
    </section>
  );
}

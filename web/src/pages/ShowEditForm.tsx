import { useState } from 'preact/hooks';
import { api, ApiError, type Show } from '../api';
import { timeZoneName } from '../format';
import { t } from '../i18n';
import { PolicyFields, policyHours, policyInput } from './PolicyFields';

/** A datetime-local value (the browser's time zone, minutes) for an ISO instant. */
export const toLocalInput = (iso: string): string => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The organizer's edit of a show's words and times (PATCH /admin/shows/{id}); only what changed is sent. */
export function ShowEditForm({ show, onSaved }: { show: Show; onSaved: (show: Show) => void }) {
  const initial = {
    title: show.title, description: show.description ?? '', imageUrl: show.imageUrl ?? '', venue: show.venue, city: show.city,
    startsAt: toLocalInput(show.startsAt), saleStartsAt: toLocalInput(show.saleStartsAt), saleEndsAt: toLocalInput(show.saleEndsAt),
    refundUntilHoursBefore: policyInput(show.refundUntilHoursBefore), exchangeUntilHoursBefore: policyInput(show.exchangeUntilHoursBefore),
  };
  const [draft, setDraft] = useState(initial);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const zone = timeZoneName();

  const save = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, string | number | null> = {};
    for (const key of Object.keys(draft) as (keyof typeof draft)[]) {
      if (draft[key] === initial[key]) continue;
      if (key === 'startsAt' || key === 'saleStartsAt' || key === 'saleEndsAt') body[key] = new Date(draft[key]).toISOString();
      else if (key === 'imageUrl') body[key] = draft.imageUrl === '' ? null : draft.imageUrl;
      else if (key === 'refundUntilHoursBefore' || key === 'exchangeUntilHoursBefore') body[key] = policyHours(draft[key]);
      else body[key] = draft[key];
    }
    if (Object.keys(body).length === 0) return;
    setBusy(true);
    setMessage(null);
    try {
      const saved = await api<Show>(`/admin/shows/${encodeURIComponent(show.showId)}`, { method: 'PATCH', body });
      setMessage({ ok: true, text: t('changesSaved') });
      onSaved(saved);
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const input = (key: keyof typeof draft, label: string, type: 'text' | 'url' | 'datetime-local' = 'text') => {
    const id = `edit-${key}`;
    const onInput = (e: Event) => setDraft((d) => ({ ...d, [key]: (e.target as HTMLInputElement).value }));
    return (
      <>
        <label for={id}>{type === 'datetime-local' ? t('timeIn', { label, zone }) : label}</label>
        {type === 'datetime-local'
          ? <input id={id} type="datetime-local" required value={draft[key]} onInput={onInput} />
          : type === 'url'
            ? <input id={id} type="url" maxLength={500} pattern="https://.+" value={draft[key]} onInput={onInput} />
            : <input id={id} type="text" required maxLength={200} value={draft[key]} onInput={onInput} />}
      </>
    );
  };

  return (
    <details class="edit-show" data-testid="edit-show">
      <summary>{t('editShow')}</summary>
      <form onSubmit={(e) => void save(e)}>
        <p class="muted">{t('timeZoneNote', { zone })}</p>
        <div class="form-grid">
          {input('title', t('title'))}
          {input('venue', t('venue'))}
          {input('city', t('city'))}
          {input('imageUrl', t('imageUrl'), 'url')}
          {input('startsAt', t('startsAt'), 'datetime-local')}
          {input('saleStartsAt', t('saleStartsAt'), 'datetime-local')}
          {input('saleEndsAt', t('saleEndsAt'), 'datetime-local')}
          <PolicyFields prefix="edit" refund={draft.refundUntilHoursBefore} exchange={draft.exchangeUntilHoursBefore}
            onRefund={(v) => setDraft((d) => ({ ...d, refundUntilHoursBefore: v }))} onExchange={(v) => setDraft((d) => ({ ...d, exchangeUntilHoursBefore: v }))} />
          <label for="edit-description">{t('description')}</label>
          <textarea id="edit-description" maxLength={2000} rows={3} value={draft.description}
            onInput={(e) => setDraft((d) => ({ ...d, description: (e.target as HTMLTextAreaElement).value }))} />
        </div>
        {message !== null && <p class={message.ok ? 'muted' : 'notice'} role={message.ok ? 'status' : 'alert'} data-testid="edit-message">{message.text}</p>}
        <button type="submit" class="primary" data-testid="save-edit" disabled={busy}>{t('saveChanges')}</button>
      </form>
    </details>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { t } from '../i18n';

interface Room {
  readonly enabled: boolean;
  readonly admitPerMinute: number;
  readonly admissionSeconds: number;
  readonly queueLength: number;
  readonly admittedNow: number;
  readonly admittedLastMinute: number;
}

/** How often the live figures refresh. */
const refreshMs = 2_000;

/**
 * The organizer's controls of an activity's waiting room (issue 24 item 7): on or off, the rate
 * and the admission window, applied live; and the line as it is now (length, admissions in the
 * last minute).
 */
export function WaitingRoomPanel({ activityId }: { activityId: string }) {
  const path = `/admin/activities/${encodeURIComponent(activityId)}/waiting-room`;
  const [room, setRoom] = useState<Room | null>(null);
  const [draft, setDraft] = useState<{ enabled: boolean; admitPerMinute: string; admissionSeconds: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    let alive = true;
    const load = () => api<Room>(path).then((r) => {
      if (!alive) return;
      setRoom(r);
      setDraft((d) => d ?? { enabled: r.enabled, admitPerMinute: String(r.enabled ? r.admitPerMinute : 600), admissionSeconds: String(r.admissionSeconds) });
    }, (e: unknown) => alive && setMessage(errorText(e)));
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [activityId]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (draft === null) return;
    try {
      const saved = await api<Room>(path, { method: 'PUT', body: { enabled: draft.enabled, admitPerMinute: Number(draft.admitPerMinute), admissionSeconds: Number(draft.admissionSeconds) } });
      setRoom(saved);
      setMessage(t('waitingRoomSaved'));
    } catch (e) {
      setMessage(errorText(e));
    }
  };

  return (
    <section class="panel" data-testid="waiting-room-panel" aria-labelledby="waiting-room-title">
      <h2 id="waiting-room-title">{t('waitingRoomTitle')}</h2>
      {room !== null && (
        <p role="status" data-testid="waiting-room-live">
          {room.enabled ? t('waitingRoomOn') : t('waitingRoomOff')} · {t('waitingRoomFigures', { waiting: room.queueLength, admitted: room.admittedLastMinute })}
        </p>
      )}
      {draft !== null && (
        <form onSubmit={(e) => void save(e)} class="stack">
          <label><input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: (e.target as HTMLInputElement).checked })} data-testid="waiting-room-enabled" /> {t('waitingRoomEnabled')}</label>
          <label>{t('waitingRoomRate')} <input type="number" min={0} max={60000} step={1} required value={draft.admitPerMinute} onInput={(e) => setDraft({ ...draft, admitPerMinute: (e.target as HTMLInputElement).value })} data-testid="waiting-room-rate" /></label>
          <label>{t('waitingRoomWindow')} <input type="number" min={30} max={3600} step={1} required value={draft.admissionSeconds} onInput={(e) => setDraft({ ...draft, admissionSeconds: (e.target as HTMLInputElement).value })} data-testid="waiting-room-window" /></label>
          <p class="muted">{t('waitingRoomHint')}</p>
          <button type="submit" class="primary" data-testid="waiting-room-save">{t('waitingRoomSave')}</button>
        </form>
      )}
      {message !== null && <p class="notice" role="status" data-testid="waiting-room-message">{message}</p>}
    </section>
  );
}

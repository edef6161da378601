import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Show, type ShowSection } from '../api';
import { dateTime } from '../format';
import { t } from '../i18n';
import { online } from '../online';
import { role } from '../session';
import { AttendeeSearch } from './AttendeeSearch';
import { doorShows, loadShows } from './door-shows';
import { dropScans, getValue, markAdmitted, queueScan, queuedScans, setValue, wasAdmitted } from './offline-store';
import { isQrPayload, peekClaims, placeName } from './place';
import { importPublicKey, verifyQr } from './verify';
import './door.css';

type Verdict = 'ADMITTED' | 'ALREADY_USED' | 'INVALID';
interface Answer {
  readonly verdict: Verdict;
  /**
   * Where the ticket admits (show, section, seat); null when not known. Named when drawn, from the
   * shows' sections as they are then, so an answer given before they arrived still reads right.
   */
  readonly place: Place | null;
  readonly offline: boolean;
  /** The scan's nonce: an offline answer is marked uploaded once its scan is. */
  readonly nonce: string;
  readonly uploaded?: boolean;
}
interface Place {
  readonly showId: string | undefined;
  readonly sectionId: string | null | undefined;
  readonly seatId: string | null | undefined;
}
interface SyncResult {
  readonly nonce: string;
  readonly outcome: string;
  readonly ticketId: string | null;
  readonly showId?: string | null;
  readonly sectionId?: string | null;
  readonly seatId: string | null;
  readonly flagged: boolean;
}
interface CheckedTicket {
  readonly ticketId: string;
  readonly showId: string;
  readonly sectionId: string;
  readonly seatId: string | null;
}

/** Uploads at most this many queued scans per request (the server's bound). */
const uploadBatchMax = 500;
/** How often the live count is read while the door is online. */
const countEveryMs = 5_000;
const icons: Record<Verdict, string> = { ADMITTED: '✓', ALREADY_USED: '!', INVALID: '✕' };
const showKey = 'tr.door.show';

interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}
type BarcodeDetectorCtor = new (options: { formats: string[] }) => BarcodeDetectorLike;

export function DoorPage() {
  const [code, setCode] = useState('');
  const [gate, setGate] = useState(() => localStorage.getItem('tr.gate') ?? 'G1');
  const [shows, setShows] = useState<Show[]>([]);
  const [showId, setShowId] = useState(() => localStorage.getItem(showKey) ?? '');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [count, setCount] = useState<{ tickets: number; checkedIn: number } | null>(null);
  const [queued, setQueued] = useState(0);
  const [syncNote, setSyncNote] = useState<string | null>(null);
  const [flags, setFlags] = useState<SyncResult[]>([]);
  const [key, setKey] = useState<CryptoKey | null>(null);
  const [keyMissing, setKeyMissing] = useState(false);
  /** The key and the revoked lists are saved on this device: scans can be checked without the network. */
  const [offlineReady, setOfflineReady] = useState(false);
  const [camera, setCamera] = useState(false);
  const revoked = useRef<Set<string>>(new Set());
  const syncing = useRef(false);
  const input = useRef<HTMLInputElement>(null);
  const video = useRef<HTMLVideoElement>(null);
  const Detector = (window as unknown as { BarcodeDetector?: BarcodeDetectorCtor }).BarcodeDetector;

  const sectionsOf = (id: string | undefined): readonly ShowSection[] => shows.find((s) => s.showId === id)?.sections ?? [];
  const choices = doorShows(shows);
  const chosen = shows.find((s) => s.showId === showId) ?? null;

  const refreshQueued = async () => setQueued((await queuedScans()).length);

  const refreshCount = async () => {
    if (showId === '' || !navigator.onLine) return;
    try {
      setCount(await api<{ tickets: number; checkedIn: number }>(`/shows/${encodeURIComponent(showId)}/checkin-stats`));
    } catch {
      // Offline or refused: keep the last count.
    }
  };

  const sync = async () => {
    if (syncing.current || !navigator.onLine) return;
    syncing.current = true;
    try {
      const scans = await queuedScans();
      let uploaded = 0;
      const flagged: SyncResult[] = [];
      const done = new Set<string>();
      for (let i = 0; i < scans.length; i += uploadBatchMax) {
        const batch = scans.slice(i, i + uploadBatchMax);
        const { results } = await api<{ results: SyncResult[] }>('/checkin/offline-scans', { method: 'POST', body: { scans: batch } });
        await dropScans(batch.map((s) => s.nonce));
        uploaded += batch.length;
        for (const s of batch) done.add(s.nonce);
        flagged.push(...results.filter((r) => r.flagged));
      }
      if (uploaded > 0) {
        setSyncNote(t('synced', { n: uploaded }));
        // The last offline answer no longer promises an upload that has happened.
        setAnswer((a) => (a !== null && a.offline && done.has(a.nonce) ? { ...a, uploaded: true } : a));
        void refreshCount();
      }
      if (flagged.length > 0) setFlags((f) => [...f, ...flagged]);
    } catch {
      // Still offline or refused: the scans stay queued for the next try.
    } finally {
      syncing.current = false;
      await refreshQueued();
    }
  };

  // The door can be installed as an app of its own (it works offline): its manifest is linked while it is open.
  useEffect(() => {
    const link = document.createElement('link');
    link.rel = 'manifest';
    link.href = '/manifest.webmanifest';
    document.head.append(link);
    return () => link.remove();
  }, []);

  // The key, the shows (their sections name seats) and the revoked lists are fetched while online
  // and kept for when the network goes.
  useEffect(() => {
    void (async () => {
      let pem = await getValue<string>('publicKeyPem');
      let ids = await getValue<string[]>('revoked');
      const known = await loadShows(navigator.onLine);
      setShows(known);
      if (navigator.onLine) {
        try {
          pem = (await api<{ publicKeyPem: string }>('/tickets/public-key')).publicKeyPem;
          await setValue('publicKeyPem', pem);
          const lists = await Promise.all(known.map((s) => api<{ ticketIds: string[] }>(`/shows/${encodeURIComponent(s.showId)}/revoked-tickets`).catch(() => ({ ticketIds: [] }))));
          ids = lists.flatMap((l) => l.ticketIds);
          await setValue('revoked', ids);
        } catch {
          // Use what is cached.
        }
      }
      revoked.current = new Set(ids ?? []);
      if (pem === undefined) setKeyMissing(true);
      else {
        const imported = await importPublicKey(pem).catch(() => null);
        setKey(imported);
        setOfflineReady(imported !== null);
      }
      await refreshQueued();
      await sync();
    })();
  }, []);

  useEffect(() => {
    if (online.value) void sync();
  }, [online.value]);

  // The live count of the chosen show, while online.
  useEffect(() => {
    setCount(null);
    if (showId === '' || !online.value) return;
    void refreshCount();
    const timer = setInterval(() => void refreshCount(), countEveryMs);
    return () => clearInterval(timer);
  }, [showId, online.value]);

  const checkOffline = async (qr: string, nonce: string): Promise<Answer> => {
    if (key === null) {
      setKeyMissing(true);
      return { verdict: 'INVALID', place: null, offline: true, nonce };
    }
    const claims = await verifyQr(key, qr);
    const place = claims === null ? null : { showId: claims.show, sectionId: claims.sec, seatId: claims.seat };
    if (claims === null || revoked.current.has(claims.tid)) return { verdict: 'INVALID', place, offline: true, nonce };
    if (await wasAdmitted(claims.tid)) return { verdict: 'ALREADY_USED', place, offline: true, nonce };
    await markAdmitted(claims.tid);
    await queueScan({ nonce, qr, scannedAt: new Date().toISOString(), gate, offlineVerdict: 'ADMITTED' });
    await refreshQueued();
    return { verdict: 'ADMITTED', place, offline: true, nonce };
  };

  /** Online check-in, by QR or by the printed code within the chosen show; null when the network failed. */
  const checkOnline = async (ref: { qr: string } | { code: string; showId: string }, nonce: string): Promise<Answer | null> => {
    try {
      const { ticket } = await api<{ ticket: CheckedTicket }>('/checkin', { method: 'POST', body: { ...ref, nonce, gate } });
      await markAdmitted(ticket.ticketId);
      void refreshCount();
      return { verdict: 'ADMITTED', place: { showId: ticket.showId, sectionId: ticket.sectionId, seatId: ticket.seatId }, offline: false, nonce };
    } catch (e) {
      if (!(e instanceof ApiError)) return null;
      const peeked = 'qr' in ref ? peekClaims(ref.qr) : null;
      const place = peeked === null ? null : { showId: peeked.show, sectionId: peeked.sec, seatId: peeked.seat };
      return { verdict: e.code === 'TICKET_ALREADY_USED' ? 'ALREADY_USED' : 'INVALID', place, offline: false, nonce };
    }
  };

  const check = async (raw: string) => {
    const text = raw.trim();
    if (text === '') return;
    setNotice(null);
    const nonce = `${gate}-${crypto.randomUUID()}`;
    let result: Answer | null;
    if (isQrPayload(text)) {
      result = navigator.onLine ? await checkOnline({ qr: text }, nonce) : null;
      result ??= await checkOffline(text, nonce);
    } else if (showId === '') {
      result = null;
      setNotice(t('doorCodeNeedsShow'));
    } else {
      // A typed code is only known to the server: offline there is nothing to check it against.
      result = navigator.onLine ? await checkOnline({ code: text, showId }, nonce) : null;
      if (result === null) setNotice(t('doorCodeOfflineOnlyQr'));
    }
    // No answer (a notice instead): the previous ticket's verdict goes, so it is not read as this one's.
    setAnswer(result);
    setCode('');
    input.current?.focus();
  };

  // Camera scanning where the browser has a barcode detector.
  useEffect(() => {
    if (!camera || Detector === undefined) return;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setInterval> | undefined;
    let last = '';
    const detector = new Detector({ formats: ['qr_code'] });
    void navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } }).then((s) => {
      stream = s;
      if (video.current === null) return;
      video.current.srcObject = s;
      void video.current.play();
      timer = setInterval(() => {
        if (video.current === null) return;
        void detector.detect(video.current).then((codes) => {
          const value = codes[0]?.rawValue;
          if (value !== undefined && value !== last) {
            last = value;
            void check(value);
          }
        }, () => undefined);
      }, 300);
    }, () => setCamera(false));
    return () => {
      clearInterval(timer);
      stream?.getTracks().forEach((track) => track.stop());
    };
  }, [camera]);

  if (role.value !== 'STAFF' && role.value !== 'ADMIN') return <p role="alert">{t('needStaff')}</p>;
  return (
    <section class="door">
      <h1>{t('doorTitle')}</h1>
      <div class="door-show row">
        <label for="door-show">{t('doorShow')}</label>
        <select id="door-show" value={showId} data-testid="door-show"
          onChange={(e) => { const v = (e.target as HTMLSelectElement).value; setShowId(v); localStorage.setItem(showKey, v); }}>
          <option value="">{t('doorChooseShow')}</option>
          {/* The chosen show stays listed even when its day has passed. */}
          {[...choices, ...(chosen !== null && !choices.includes(chosen) ? [chosen] : [])].map((s) => (
            <option key={s.showId} value={s.showId}>{s.title} · {dateTime(s.startsAt)}</option>
          ))}
        </select>
        {shows.length > 0 && choices.length === 0 && <span>{t('doorNoShows')}</span>}
        {count !== null && (
          <p class="door-count" data-testid="door-count">
            <span class="sr-only">{t('doorCountLabel')}: </span>{t('doorCount', { checkedIn: count.checkedIn, tickets: count.tickets })}
          </p>
        )}
      </div>
      <form class="door-form" onSubmit={(e) => { e.preventDefault(); void check(code); }}>
        <label for="gate">{t('gate')}</label>
        <input id="gate" value={gate} size={6} onInput={(e) => { const v = (e.target as HTMLInputElement).value; setGate(v); localStorage.setItem('tr.gate', v); }} />
        <label for="code">{t('ticketCode')}</label>
        <input id="code" ref={input} value={code} autoFocus autocomplete="off" aria-describedby="code-hint" data-testid="door-code"
          onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
        <small id="code-hint">{t('ticketCodeHint')}</small>
        <div class="row">
          <button type="submit" class="primary" data-testid="door-check">{t('check')}</button>
          {Detector !== undefined && (
            <button type="button" onClick={() => setCamera((c) => !c)} aria-pressed={camera} data-testid="door-camera">{camera ? t('stopCamera') : t('scanCamera')}</button>
          )}
        </div>
      </form>
      {notice !== null && <p class="notice" role="alert" data-testid="door-notice">{notice}</p>}
      {camera && <video ref={video} class="camera" muted playsInline aria-label={t('cameraPreview')} />}
      <div class={`verdict ${answer === null ? '' : `verdict-${answer.verdict.toLowerCase()}`}`} role="status" aria-live="assertive" data-testid="door-verdict">
        {answer !== null && (
          <>
            <span class="verdict-icon" aria-hidden="true">{icons[answer.verdict]}</span>
            <strong>{t(`result${answer.verdict}` as const)}</strong>
            {answer.place !== null && <span class="verdict-seat">{placeName(sectionsOf(answer.place.showId), answer.place.sectionId, answer.place.seatId)}</span>}
            {answer.offline && <small>{answer.uploaded === true ? t('checkedOfflineUploaded') : t('checkedOffline')}</small>}
          </>
        )}
      </div>
      <p data-testid="door-queued">{t('queued', { n: queued })}</p>
      {keyMissing && key === null && <p class="notice" role="alert">{t('keyMissing')}</p>}
      {offlineReady && <p data-testid="door-offline-ready">{t('offlineReady')}</p>}
      {syncNote !== null && <p role="status" data-testid="door-synced">{syncNote}</p>}
      {flags.map((f) => (
        <p key={f.nonce} class="notice" role="alert" data-testid="door-flag">
          {t('doorFlagged', { ticket: f.ticketId ?? '?', place: placeName(sectionsOf(f.showId ?? showId), f.sectionId, f.seatId) })}
        </p>
      ))}
      {showId !== '' && online.value && <AttendeeSearch showId={showId} sections={sectionsOf(showId)} onAdmit={(c) => check(c)} />}
    </section>
  );
}

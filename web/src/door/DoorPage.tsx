import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Show } from '../api';
import { t } from '../i18n';
import { online } from '../online';
import { role } from '../session';
import { dropScans, getValue, markAdmitted, queueScan, queuedScans, setValue, wasAdmitted } from './offline-store';
import { importPublicKey, verifyQr, type Claims } from './verify';

type Verdict = 'ADMITTED' | 'ALREADY_USED' | 'INVALID';
interface Answer {
  readonly verdict: Verdict;
  readonly seat: string | null;
  readonly offline: boolean;
}
interface SyncResult {
  readonly nonce: string;
  readonly outcome: string;
  readonly ticketId: string | null;
  readonly seatId: string | null;
  readonly flagged: boolean;
}

/** Uploads at most this many queued scans per request (the server's bound). */
const uploadBatchMax = 500;
const icons: Record<Verdict, string> = { ADMITTED: '✓', ALREADY_USED: '!', INVALID: '✕' };

interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}
type BarcodeDetectorCtor = new (options: { formats: string[] }) => BarcodeDetectorLike;

/** Seat of a code, read without checking it (only to show which seat a refused ticket is for). */
function peekSeat(qr: string): string | null {
  try {
    const body = qr.trim().split('.')[1] ?? '';
    return (JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/'))) as Partial<Claims>).seat ?? null;
  } catch {
    return null;
  }
}

export function DoorPage() {
  const [code, setCode] = useState('');
  const [gate, setGate] = useState(() => localStorage.getItem('tr.gate') ?? 'G1');
  const [answer, setAnswer] = useState<Answer | null>(null);
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

  const refreshQueued = async () => setQueued((await queuedScans()).length);

  const sync = async () => {
    if (syncing.current || !navigator.onLine) return;
    syncing.current = true;
    try {
      const scans = await queuedScans();
      let uploaded = 0;
      const flagged: SyncResult[] = [];
      for (let i = 0; i < scans.length; i += uploadBatchMax) {
        const batch = scans.slice(i, i + uploadBatchMax);
        const { results } = await api<{ results: SyncResult[] }>('/checkin/offline-scans', { method: 'POST', body: { scans: batch } });
        await dropScans(batch.map((s) => s.nonce));
        uploaded += batch.length;
        flagged.push(...results.filter((r) => r.flagged));
      }
      if (uploaded > 0) setSyncNote(t('synced', { n: uploaded }));
      if (flagged.length > 0) setFlags((f) => [...f, ...flagged]);
    } catch {
      // Still offline or refused: the scans stay queued for the next try.
    } finally {
      syncing.current = false;
      await refreshQueued();
    }
  };

  // The key and revoked lists are fetched while online and kept for when the network goes.
  useEffect(() => {
    void (async () => {
      let pem = await getValue<string>('publicKeyPem');
      let ids = await getValue<string[]>('revoked');
      if (navigator.onLine) {
        try {
          pem = (await api<{ publicKeyPem: string }>('/tickets/public-key')).publicKeyPem;
          await setValue('publicKeyPem', pem);
          const { shows } = await api<{ shows: Show[] }>('/shows?limit=100');
          const lists = await Promise.all(shows.map((s) => api<{ ticketIds: string[] }>(`/shows/${encodeURIComponent(s.showId)}/revoked-tickets`).catch(() => ({ ticketIds: [] }))));
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

  const checkOffline = async (qr: string, nonce: string): Promise<Answer> => {
    if (key === null) {
      setKeyMissing(true);
      return { verdict: 'INVALID', seat: null, offline: true };
    }
    const claims = await verifyQr(key, qr);
    if (claims === null || revoked.current.has(claims.tid)) return { verdict: 'INVALID', seat: claims?.seat ?? null, offline: true };
    if (await wasAdmitted(claims.tid)) return { verdict: 'ALREADY_USED', seat: claims.seat, offline: true };
    await markAdmitted(claims.tid);
    await queueScan({ nonce, qr, scannedAt: new Date().toISOString(), gate, offlineVerdict: 'ADMITTED' });
    await refreshQueued();
    return { verdict: 'ADMITTED', seat: claims.seat, offline: true };
  };

  const check = async (raw: string) => {
    const qr = raw.trim();
    if (qr === '') return;
    const nonce = `${gate}-${crypto.randomUUID()}`;
    let result: Answer;
    if (!navigator.onLine) result = await checkOffline(qr, nonce);
    else {
      try {
        const admitted = await api<{ ticket: { ticketId: string; seatId: string } }>('/checkin', { method: 'POST', body: { qr, nonce } });
        await markAdmitted(admitted.ticket.ticketId);
        result = { verdict: 'ADMITTED', seat: admitted.ticket.seatId, offline: false };
      } catch (e) {
        if (!(e instanceof ApiError)) result = await checkOffline(qr, nonce);
        else result = { verdict: e.code === 'TICKET_ALREADY_USED' ? 'ALREADY_USED' : 'INVALID', seat: peekSeat(qr), offline: false };
      }
    }
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
            <button type="button" onClick={() => setCamera((c) => !c)} aria-pressed={camera}>{camera ? t('stopCamera') : t('scanCamera')}</button>
          )}
        </div>
      </form>
      {camera && <video ref={video} class="camera" muted playsInline aria-label={t('cameraPreview')} />}
      <div class={`verdict ${answer === null ? '' : `verdict-${answer.verdict.toLowerCase()}`}`} role="status" aria-live="assertive" data-testid="door-verdict">
        {answer !== null && (
          <>
            <span class="verdict-icon" aria-hidden="true">{icons[answer.verdict]}</span>
            <strong>{t(`result${answer.verdict}` as const)}</strong>
            {answer.seat !== null && <span class="verdict-seat">{t('resultSeat', { seat: answer.seat })}</span>}
            {answer.offline && <small>{t('checkedOffline')}</small>}
          </>
        )}
      </div>
      <p data-testid="door-queued">{t('queued', { n: queued })}</p>
      {keyMissing && key === null && <p class="notice" role="alert">{t('keyMissing')}</p>}
      {offlineReady && <p data-testid="door-offline-ready">{t('offlineReady')}</p>}
      {syncNote !== null && <p role="status" data-testid="door-synced">{syncNote}</p>}
      {flags.map((f) => <p key={f.nonce} class="notice" role="alert" data-testid="door-flag">{t('flagged', { ticket: f.ticketId ?? '?', seat: f.seatId ?? '?' })}</p>)}
    </section>
  );
}

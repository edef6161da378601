import { useState } from 'preact/hooks';
import { admissionHeaders } from '../admission';
import { api, type Bargain, type BargainOrder } from '../api';
import { errorText } from '../errors';
import { duration, money } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';
import { navigate, path, signInHref } from '../router';
import { session } from '../session';
import { AuthPage } from './AuthPage';

/** A fresh idempotency key per press of "order": a retried request (same press) never orders twice. */
const newKey = (): string => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `k${Date.now()}${Math.random().toString(36).slice(2)}`);

/**
 * A bargain (seed 001 砍价): the goods, the original price and the floor, the countdown, and
 * "start", which opens the buyer's bargain order (or goes back to the one they started).
 */
export function BargainPage({ bargainId }: { bargainId: string }) {
  const loaded = useLoad(async () => ({ loadedAt: Date.now(), bargain: await api<Bargain>(`/bargains/${encodeURIComponent(bargainId)}`) }), [bargainId]);
  const now = useTick();
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (loaded.error !== null) return <p role="alert">{loaded.error} <button type="button" onClick={loaded.reload}>{t('retry')}</button></p>;
  if (loaded.data === null) return <p role="status">{t('loading')}</p>;
  const { loadedAt, bargain: b } = loaded.data;
  const passed = Math.max(0, now - loadedAt);
  const toStart = b.secondsToStart * 1000 - passed;
  const toEnd = b.secondsToEnd * 1000 - passed;
  const status = b.status === 'OFFLINE' ? 'OFFLINE' : toStart > 0 ? 'UPCOMING' : toEnd > 0 ? 'ON_SALE' : 'ENDED';
  const start = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const started = await api<{ bargainOrderId: string }>(`/bargains/${encodeURIComponent(b.bargainId)}/start`, { method: 'POST' });
      navigate(`/bargain-orders/${encodeURIComponent(started.bargainOrderId)}`);
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <h1>{b.title}</h1>
      {b.imageUrl && <img class="card-image" src={b.imageUrl} alt={b.title} width={640} height={360} decoding="async" />}
      {b.description !== '' && <p>{b.description}</p>}
      <p>
        <span class={`badge badge-${status === 'OFFLINE' ? 'ended' : status.toLowerCase()}`} data-testid="sale-status">
          {status === 'ON_SALE' ? t('statusOnSale') : status === 'UPCOMING' ? t('statusUpcoming') : status === 'OFFLINE' ? t('statusOffline') : t('statusEnded')}
        </span>{' '}
        {status === 'UPCOMING' && <span class="countdown" role="timer" aria-live="off" data-testid="countdown">{t('saleOpensIn', { time: duration(toStart) })}</span>}
        {status === 'ON_SALE' && <span class="countdown" role="timer" aria-live="off" data-testid="countdown">{t('saleClosesIn', { time: duration(toEnd) })}</span>}
      </p>
      <h2>{b.goods}</h2>
      <p data-testid="bargain-prices">{t('bargainPrices', { original: money(b.originalPriceCents, b.currency), floor: money(b.floorPriceCents, b.currency) })}</p>
      <p class="muted">{t('bargainRules', { min: money(b.cutMinCents, b.currency), max: money(b.cutMaxCents, b.currency), n: b.minCuts })}</p>
      <p class="muted" data-testid="bargain-left">{b.available === 0 ? t('statusSoldOut') : t('itemLeft', { n: b.available, total: b.stock })}</p>
      {notice !== null && <p class="notice" role="alert">{notice}</p>}
      {session.value === null ? (
        <p><a class="button primary" href={signInHref()}>{t('signInToBargain')}</a></p>
      ) : busy ? <p role="status">{t('loading')}</p> : (
        <p><button type="button" class="primary" data-testid="start-bargain" disabled={status !== 'ON_SALE'} onClick={() => void start()}>{t('startBargain')}</button></p>
      )}
    </section>
  );
}

/**
 * A bargain order, which is also its share page: the price on its way from the original to the
 * floor, every friend's cut, and what the viewer can do: the buyer shares the link and orders once
 * ready; a friend cuts once; a newcomer registers on the spot and then cuts.
 */
export function BargainOrderPage({ bargainOrderId }: { bargainOrderId: string }) {
  const loaded = useLoad(() => api<BargainOrder>(`/bargain-orders/${encodeURIComponent(bargainOrderId)}`), [bargainOrderId, session.value?.token]);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (loaded.error !== null) return <p role="alert">{loaded.error} <button type="button" onClick={loaded.reload}>{t('retry')}</button></p>;
  if (loaded.data === null) return <p role="status">{t('loading')}</p>;
  const o = loaded.data;
  const act = async (what: 'cut' | 'order') => {
    setBusy(true);
    setNotice(null);
    try {
      if (what === 'cut') {
        const cut = await api<{ amountCents: number }>(`/bargain-orders/${encodeURIComponent(o.bargainOrderId)}/cuts`, { method: 'POST' });
        setNotice(t('bargainYouCut', { amount: money(cut.amountCents, o.currency) }));
        loaded.reload();
      } else {
        const order = await api<{ orderId: string }>(`/bargain-orders/${encodeURIComponent(o.bargainOrderId)}/order`, { method: 'POST', headers: { 'x-idempotency-key': newKey(), ...admissionHeaders(o.bargainId) } });
        navigate(`/orders/${encodeURIComponent(order.orderId)}`);
      }
    } catch (e) {
      setNotice(errorText(e, true));
      loaded.reload();
    } finally {
      setBusy(false);
    }
  };
  const total = o.originalPriceCents - o.floorPriceCents;
  const done = o.originalPriceCents - o.currentPriceCents;
  const shareLink = `${location.origin}${o.shareUrl}`;
  const statusText = o.status === 'READY' ? t('bargainReady') : o.status === 'ORDERED' ? t('bargainOrdered') : o.status === 'LAPSED' ? t('bargainLapsed') : t('bargainCutting', { n: Math.max(0, o.minCuts - o.cuts) });
  return (
    <section>
      <h1>{o.title}</h1>
      <h2>{o.goods}</h2>
      <p>
        <strong data-testid="bargain-price">{money(o.currentPriceCents, o.currency)}</strong>{' '}
        {o.currentPriceCents < o.originalPriceCents && <s class="muted">{t('originalPrice', { price: money(o.originalPriceCents, o.currency) })}</s>}
      </p>
      <label for="bargain-progress">{t('bargainProgress', { floor: money(o.floorPriceCents, o.currency) })}</label>
      <progress id="bargain-progress" max={total} value={done} data-testid="bargain-progress">{Math.round((done / total) * 100)}%</progress>
      <p data-testid="bargain-status" role="status">{statusText}</p>
      {notice !== null && <p class="notice" role="alert" data-testid="bargain-notice">{notice}</p>}
      {session.value === null ? (
        <div data-testid="join-to-cut">
          <p>{t('bargainJoinToCut')}</p>
          <AuthPage mode="signup" back={path.value} />
        </div>
      ) : o.mine === true ? (
        <div>
          <label for="share-link">{t('bargainShareLink')}</label>
          <input id="share-link" type="text" readOnly value={shareLink} data-testid="share-link" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <p class="row">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(shareLink).then(() => setNotice(t('bargainCopied')), () => undefined)}>{t('bargainCopy')}</button>
            {o.orderId !== null
              ? <a class="button" href={`/orders/${encodeURIComponent(o.orderId)}`} data-testid="bargain-see-order">{t('bargainSeeOrder')}</a>
              : <button type="button" class="primary" data-testid="bargain-order" disabled={busy || o.status !== 'READY'} onClick={() => void act('order')}>{t('bargainOrderAt', { price: money(o.currentPriceCents, o.currency) })}</button>}
          </p>
        </div>
      ) : (
        <p><button type="button" class="primary" data-testid="bargain-cut" disabled={busy || o.cutByMe === true || o.status === 'ORDERED' || o.status === 'LAPSED' || o.currentPriceCents <= o.floorPriceCents} onClick={() => void act('cut')}>
          {o.cutByMe === true ? t('bargainAlreadyCut') : t('bargainCutForFriend')}
        </button></p>
      )}
      <h2>{t('bargainCuts', { n: o.cuts })}</h2>
      <ol data-testid="bargain-cuts">
        {o.cutList.map((c) => <li key={`${c.helperName} ${c.cutAt}`}>{t('bargainCutLine', { name: c.helperName, amount: money(c.amountCents, o.currency) })}</li>)}
      </ol>
    </section>
  );
}

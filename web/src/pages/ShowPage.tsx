import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, capacityOf, isCounted, mapSections, serverNow, type Order, type OrderContact, type Show, type ShowSection } from '../api';
import { errorText } from '../errors';
import { dateTime, duration, money } from '../format';
import { linesName } from '../lines';
import { holdsChanged, myHolds, timeOfDay, type HoldWithTerms } from '../my-holds';
import { seatName, seatsName } from '../seat-names';
import { useTick } from '../hooks';
import { t } from '../i18n';
import { navigate, signInHref } from '../router';
import { loadSelection, saveSelection } from '../selection-store';
import { session } from '../session';
import { LiveSeats } from '../seatmap/live-seats';
import { SeatMap } from '../seatmap/SeatMap';
import { BestAvailable } from './BestAvailable';
import { WaitlistPanel } from './WaitlistPanel';
import { ShowPolicy } from './ShowPolicy';
import { AdmissionLine, QueueNeeded } from './QueueNotes';
import { admissionHeaders, needsQueue } from '../admission';

const seatsPerHoldMax = 10;

export function ShowPage({ showId }: { showId: string }) {
  const [seats, setSeats] = useState<LiveSeats | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let opened: LiveSeats | null = null;
    let alive = true;
    LiveSeats.open(showId, api<Show>(`/shows/${encodeURIComponent(showId)}`))
      .then((s) => {
        opened = s;
        if (alive) setSeats(s);
        else s.close();
      }, (e: unknown) => alive && setError(errorText(e)));
    return () => {
      alive = false;
      opened?.close();
    };
  }, [showId]);
  if (error !== null) return <p role="alert">{error}</p>;
  if (seats === null) return <p role="status">{t('loading')}</p>;
  return <Booking seats={seats} />;
}

function Booking({ seats }: { seats: LiveSeats }) {
  const { show, layout } = seats;
  // A selection made before signing in (or before a reload) comes back, less seats taken meanwhile.
  const [selected, setSelected] = useState<ReadonlySet<number>>(() => new Set(loadSelection(show.showId)
    .map((id) => layout.index.get(id)).filter((i): i is number => i !== undefined && seats.statuses[i] === 0).slice(0, seatsPerHoldMax)));
  useEffect(() => saveSelection(show.showId, [...selected].map((i) => layout.seatIds[i] as string)), [selected]);
  const [hold, setHold] = useState<HoldWithTerms | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** The waiting room is on and this tab has no (valid) admission: the way in is the queue. */
  const [queueNeeded, setQueueNeeded] = useState(false);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const holdRef = useRef(hold);
  holdRef.current = hold;
  /** While our own hold is on its way, our seats turning HELD is not someone else taking them. */
  const placingRef = useRef(false);

  // A seat someone else just took leaves the selection, and the buyer is told which.
  useEffect(() => seats.subscribe((changed) => {
    if (placingRef.current) return;
    const list = changed === 'ALL' ? [...selectedRef.current] : changed.filter((i) => selectedRef.current.has(i));
    const lost = list.filter((i) => seats.statuses[i] !== 0 && !holdRef.current?.seatIds.includes(layout.seatIds[i] as string));
    if (lost.length === 0) return;
    setSelected((s) => new Set([...s].filter((i) => !lost.includes(i))));
    setMessage(t('seatTaken', { seat: seatsName(show.sections, lost.map((i) => layout.seatIds[i] as string)) }));
  }), [seats]);

  // The hold as the server knows it: after a reload, in another tab, after signing in again, the
  // panel comes back; released, paid or lapsed elsewhere, it goes; extended elsewhere, it follows.
  useEffect(() => {
    const known = myHolds.value;
    if (known === null) return;
    const local = holdRef.current;
    if (local === null) {
      const resumed = known.find((h) => h.showId === show.showId);
      if (resumed === undefined) return;
      holdRef.current = resumed;
      setHold(resumed);
      setSelected(new Set());
      return;
    }
    const current = known.find((h) => h.holdId === local.holdId);
    if (current === undefined) setHold(null);
    else if (current.expiresAt !== local.expiresAt || current.extensions !== local.extensions) setHold(current);
  }, [myHolds.value]);

  // Counts in words, live: the map's state for anyone who does not see the canvas.
  const [counts, setCounts] = useState(() => countStatuses(seats.statuses));
  useEffect(() => {
    let frame = 0;
    return seats.subscribe(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setCounts(countStatuses(seats.statuses)));
    });
  }, [seats]);

  const mine = useMemo(() => {
    if (hold === null) return selected;
    return new Set(hold.seatIds.map((id) => layout.index.get(id)).filter((i): i is number => i !== undefined));
  }, [selected, hold]);

  const pick = (i: number) => {
    if (hold !== null) return;
    setMessage(null);
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(i)) next.delete(i);
      else if (seats.statuses[i] === 0 && next.size < seatsPerHoldMax) next.add(i);
      return next;
    });
  };

  const place = async (body: object) => {
    if (session.value === null) {
      // The selection is in sessionStorage: sign-in brings the buyer back here with it.
      navigate(signInHref());
      return;
    }
    setBusy(true);
    setMessage(null);
    placingRef.current = true;
    try {
      const placed = await api<HoldWithTerms>(`/shows/${encodeURIComponent(show.showId)}/holds`, { method: 'POST', body, headers: admissionHeaders(show.showId) });
      // Known at once to the stream listener, before the next render: our own seats turning HELD are no news.
      holdRef.current = placed;
      selectedRef.current = new Set();
      setHold(placed);
      setSelected(new Set());
      setMessage(null);
      holdsChanged();
    } catch (e) {
      // Places of a counted section, or seats (best available may name a seated section too).
      const places = 'section' in body && show.sections.some((s) => isCounted(s) && s.id === (body as { section: unknown }).section);
      setMessage(places ? holdError(e, t('notEnoughPlaces')) : holdError(e));
      setQueueNeeded(e instanceof ApiError && needsQueue(e.code));
      // Seats lost while we asked leave the selection.
      setSelected((s) => new Set([...s].filter((i) => seats.statuses[i] === 0)));
    } finally {
      placingRef.current = false;
      setBusy(false);
    }
  };

  const release = async () => {
    if (hold === null) return;
    await api(`/holds/${hold.holdId}`, { method: 'DELETE' }).catch(() => undefined);
    holdRef.current = null;
    setHold(null);
    holdsChanged();
  };

  const extend = async () => {
    if (hold === null) return;
    setBusy(true);
    try {
      const extended = await api<HoldWithTerms>(`/holds/${hold.holdId}/extend`, { method: 'POST', body: {} });
      holdRef.current = extended;
      setHold(extended);
      setMessage(t('holdExtended', { until: timeOfDay(extended.expiresAt) }));
      holdsChanged();
    } catch (e) {
      setMessage(holdError(e));
    } finally {
      setBusy(false);
    }
  };

  const checkout = async (details: CheckoutDetails) => {
    if (hold === null) return;
    setBusy(true);
    try {
      const body = {
        holdId: hold.holdId,
        ...(details.discountCode.trim() === '' ? {} : { discountCode: details.discountCode.trim() }),
        ...(details.contact === null ? {} : { contact: details.contact }),
      };
      // One key per hold: a retried click is the same order, never a second one (a refused code frees the key for a corrected one).
      const order = await api<Order>('/orders', { method: 'POST', body, headers: { 'x-idempotency-key': `web-${hold.holdId}`, ...admissionHeaders(show.showId) } });
      // A provider with a hosted payment page (Stripe Checkout): the buyer pays there, then comes back to the order.
      if (order.checkoutUrl !== undefined) {
        location.assign(order.checkoutUrl);
        return;
      }
      navigate(`/orders/${order.orderId}`);
    } catch (e) {
      setMessage(e instanceof ApiError && (e.code === 'HOLD_EXPIRED' || e.code === 'HOLD_NOT_ACTIVE') ? t('holdLapsed') : holdError(e));
      setQueueNeeded(e instanceof ApiError && needsQueue(e.code));
      if (e instanceof ApiError && (e.code === 'HOLD_EXPIRED' || e.code === 'HOLD_NOT_ACTIVE')) setHold(null);
    } finally {
      setBusy(false);
    }
  };

  const priceOf = (i: number) => layout.sections[layout.section[i] as number]?.spec.priceCents ?? 0;
  const selectedTotal = [...selected].reduce((sum, i) => sum + priceOf(i), 0);
  const onSale = show.status === 'ON_SALE';
  const hasMap = layout.seatIds.length > 0;
  // Counted sections (general admission, seated sold by QUANTITY): what is left comes from the server.
  const counted = show.sections.filter(isCounted);
  const left = seats.available.value;
  const countedLeft = (s: ShowSection) => Math.max(0, Math.min(capacityOf(s), left.get(s.id) ?? capacityOf(s)));
  const countedAvailable = counted.reduce((n, s) => n + countedLeft(s), 0);
  const countedCapacity = counted.reduce((n, s) => n + capacityOf(s), 0);
  const available = counts[0] + countedAvailable;
  const total = seats.statuses.length + countedCapacity;
  // Follows the live stream: nothing left anywhere is sold out, without a reload.
  const soldOut = onSale && total > 0 && available === 0 && hold === null;

  // A cancelled show's seats are all free again (holds released, orders refunded): the notice, not the map.
  if (show.cancelled === true) {
    return (
      <section class="show-page">
        <h1>{show.title}</h1>
        <p class="muted">{show.venue} · {show.city} · {t('showStarts', { when: dateTime(show.startsAt) })}</p>
        <p class="notice warning" role="status" data-testid="show-cancelled">{t('showCancelledNotice', { reason: show.cancelReason ?? '' })}</p>
      </section>
    );
  }

  return (
    <section class="show-page">
      <h1>{show.title}</h1>
      <p class="muted">{show.venue} · {show.city} · {t('showStarts', { when: dateTime(show.startsAt) })}</p>
      <p class="live" role="status" data-testid="live-status">
        <span aria-hidden="true">{seats.live.value === 'live' ? '◉' : '◌'}</span> {seats.live.value === 'live' ? t('liveConnected') : seats.live.value === 'connecting' ? t('liveConnecting') : t('liveReconnecting')}
      </p>
      {(seats.live.value === 'paused' || seats.live.value === 'reconnecting') && (
        <p class="notice warning" data-testid="live-paused">{t('livePaused')}</p>
      )}
      <p data-testid="seat-counts">
        {counted.length === 0
          ? t('seatCounts', { available: counts[0], total: seats.statuses.length, held: counts[1], sold: counts[2] + counts[3] })
          : hasMap
            ? `${t('placeCounts', { available, total })} · ${t('seatsHeldSold', { held: counts[1], sold: counts[2] + counts[3] })}`
            : t('placeCounts', { available, total })}
      </p>
      {soldOut && <p class="badge badge-soldout sold-out" role="status" data-testid="sold-out">{t('statusSoldOut')}</p>}
      <div class={hasMap ? 'show-grid' : 'show-grid no-map'}>
        {hasMap && <SeatMap layout={layout} statuses={() => seats.statuses} subscribe={seats.subscribe} mine={mine} onPick={pick} />}
        <aside class="panel">
          {message !== null && <p class="notice" role="alert" data-testid="notice">{message}</p>}
          {queueNeeded && <QueueNeeded activityId={show.showId} />}
          <AdmissionLine activityId={show.showId} />
          {session.value === null && <p data-testid="sign-in-to-buy"><a href={signInHref()}>{t('signInToBuy')}</a></p>}
          {hold !== null ? (
            <HoldPanel hold={hold} show={show} busy={busy} onCheckout={checkout} onRelease={release} onExtend={extend} onLapse={() => { setHold(null); setMessage(t('holdLapsed')); }} />
          ) : (
            <>
              {soldOut && <p data-testid="sold-out-note">{t('soldOutNote')}</p>}
              {soldOut && session.value !== null && <WaitlistPanel showId={show.showId} max={seatsPerHoldMax} />}
              {!soldOut && counted.map((s) => (
                <CountedBlock key={s.id} section={s} left={countedLeft(s)} disabled={!onSale || busy}
                  onHold={(quantity) => void place({ section: s.id, quantity })} />
              ))}
              {hasMap && !soldOut && <>
              <h2>{t('selectedSeats')}</h2>
              {selected.size === 0 ? <p class="muted">{t('noneSelected')}</p> : (
                <ul class="chips">
                  {[...selected].map((i) => (
                    <li key={i}>
                      <button type="button" onClick={() => pick(i)} aria-label={t('removeSeat', { seat: seatName(show.sections, layout.seatIds[i] ?? '') })}>
                        {seatName(show.sections, layout.seatIds[i] ?? '')} <span aria-hidden="true">✕</span>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <button type="button" class="primary" data-testid="hold-selected" disabled={!onSale || busy || selected.size === 0}
                onClick={() => void place({ seatIds: [...selected].map((i) => layout.seatIds[i]) })}>
                {t('holdSelected', { n: selected.size })}{selected.size > 0 ? ` · ${money(selectedTotal)}` : ''}
              </button>
              <BestAvailable sections={mapSections(show.sections)} left={left} max={seatsPerHoldMax} disabled={!onSale || busy || counts[0] === 0}
                onFind={(request) => void place(request)} />
              </>}
              {!onSale && <p class="muted">{t('saleNotOpen')}</p>}
            </>
          )}
          <ShowPolicy show={show} />
        </aside>
      </div>
    </section>
  );
}

/** A counted section: what is left, how many to hold, and the button. */
function CountedBlock({ section, left, disabled, onHold }: { section: ShowSection; left: number; disabled: boolean; onHold(quantity: number): void }) {
  const [quantity, setQuantity] = useState(1);
  const most = Math.max(1, Math.min(seatsPerHoldMax, left));
  const chosen = Math.min(quantity, most);
  const id = `qty-${section.id}`;
  return (
    <div class="counted" data-testid={`counted-${section.id}`}>
      <h2>{section.name}</h2>
      <p class="muted">{section.kind === 'GENERAL_ADMISSION' ? t('generalAdmission') : t('seatsAssigned')} · {money(section.priceCents)}</p>
      <p class="big" data-testid={`left-${section.id}`}>{left === 0 ? t('statusSoldOut') : t('placesLeft', { n: left, total: capacityOf(section) })}</p>
      <div class="row">
        <label for={id}>{t('howMany')}</label>
        <select id={id} value={chosen} disabled={left === 0} onChange={(e) => setQuantity(Number((e.target as HTMLSelectElement).value))}>
          {Array.from({ length: most }, (_, k) => k + 1).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <button type="button" class="primary" data-testid={`hold-${section.id}`} disabled={disabled || left === 0} onClick={() => onHold(chosen)}>
          {t('holdPlaces', { n: chosen, section: section.name })}
        </button>
      </div>
    </div>
  );
}

/** What the buyer adds at checkout: a discount code, and a contact for the organizer (all three fields, or none). */
interface CheckoutDetails { discountCode: string; contact: OrderContact | null }

interface HoldPanelProps { hold: HoldWithTerms; show: Show; busy: boolean; onCheckout(details: CheckoutDetails): void; onRelease(): void; onExtend(): void; onLapse(): void }

function HoldPanel({ hold, show, busy, onCheckout, onRelease, onExtend, onLapse }: HoldPanelProps) {
  useTick(250);
  const [discountCode, setDiscountCode] = useState('');
  const [contact, setContact] = useState<OrderContact>({ name: '', phone: '', email: '' });
  const field = (key: keyof OrderContact) => (e: Event) => setContact((c) => ({ ...c, [key]: (e.target as HTMLInputElement).value }));
  const anyContact = contact.name.trim() !== '' || contact.phone.trim() !== '' || contact.email.trim() !== '';
  const submit = (e: Event) => {
    e.preventDefault();
    onCheckout({ discountCode, contact: anyContact ? contact : null });
  };
  const left = Date.parse(hold.expiresAt) - serverNow();
  useEffect(() => {
    if (left <= 0) onLapse();
  }, [left <= 0]);
  // "More time" while extensions remain and the life cap leaves room (an older server sends no terms).
  const extensionsLeft = hold.extensionsMax === undefined ? 0 : hold.extensionsMax - (hold.extensions ?? 0);
  const canExtend = extensionsLeft > 0 && hold.latestExpiresAt !== undefined && Date.parse(hold.latestExpiresAt) > Date.parse(hold.expiresAt);
  return (
    <div data-testid="hold-panel">
      <h2>{t('yourHold')}</h2>
      <p data-testid="hold-summary">{linesName(show.sections, hold.lines, hold.seatIds)} · {money(hold.totalPriceCents)}</p>
      <p class="countdown big" role="timer" aria-live="off" data-testid="hold-countdown">{t('holdCountdown', { time: duration(left) })}</p>
      <p>{t('total', { amount: money(hold.totalPriceCents) })}</p>
      <form class="checkout-details" onSubmit={submit} data-testid="checkout-form">
        <fieldset>
          <legend>{t('contactLegend')}</legend>
          <label>{t('contactName')} <input data-testid="contact-name" maxLength={100} autoComplete="name" required={anyContact} value={contact.name} onInput={field('name')} /></label>
          <label>{t('contactPhone')} <input data-testid="contact-phone" type="tel" maxLength={32} autoComplete="tel" required={anyContact} value={contact.phone} onInput={field('phone')} /></label>
          <label>{t('contactEmail')} <input data-testid="contact-email" type="email" maxLength={254} autoComplete="email" required={anyContact} value={contact.email} onInput={field('email')} /></label>
        </fieldset>
        <label>{t('discountCodeLabel')} <input data-testid="discount-code" maxLength={32} autoComplete="off" value={discountCode} onInput={(e) => setDiscountCode((e.target as HTMLInputElement).value)} /></label>
        <div class="row">
          <button type="submit" class="primary" data-testid="checkout" disabled={busy}>{t('checkout', { amount: money(hold.totalPriceCents) })}</button>
          <button type="button" onClick={onRelease} disabled={busy}>{t('releaseHold')}</button>
        </div>
      </form>
      {canExtend && (
        <div class="row">
          <button type="button" data-testid="more-time" disabled={busy} onClick={onExtend} aria-describedby="extensions-left">{t('moreTime')}</button>
          <span id="extensions-left" class="muted" data-testid="extensions-left">
            {t('extensionsLeft', { left: extensionsLeft, max: hold.extensionsMax ?? 0, until: timeOfDay(hold.latestExpiresAt ?? hold.expiresAt) })}
          </span>
        </div>
      )}
    </div>
  );
}

function holdError(e: unknown, notEnough = t('notEnoughSeats')): string {
  if (!(e instanceof ApiError)) return errorText(e);
  switch (e.code) {
    case 'SEAT_UNAVAILABLE':
      return t('seatsTaken');
    case 'NOT_ENOUGH_SEATS':
      return notEnough;
    case 'SALE_NOT_OPEN':
      return t('saleNotOpen');
    case 'UNAUTHORIZED':
      return t('signInToBuy');
    default:
      return errorText(e);
  }
}

/** How many seats are in each status (A H S R). */
function countStatuses(statuses: Uint8Array): [number, number, number, number] {
  const counts: [number, number, number, number] = [0, 0, 0, 0];
  for (const code of statuses) counts[code as 0 | 1 | 2 | 3]++;
  return counts;
}

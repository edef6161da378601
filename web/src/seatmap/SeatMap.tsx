import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import { money } from '../format';
import { seatMapTimings, type Listener } from './live-seats';
import { statusNames, tierColour, type SeatLayout } from './layout';

export interface SeatMapProps {
  readonly layout: SeatLayout;
  /** Current statuses (A H S R codes per seat); a getter, since a reload replaces the array. */
  readonly statuses: () => Uint8Array;
  readonly subscribe?: (listener: Listener) => () => void;
  /** Seats that are the buyer's own (selected or held by them), drawn distinctly. */
  readonly mine?: ReadonlySet<number>;
  /** Absent for a preview: the map is then not interactive. */
  readonly onPick?: (seat: number) => void;
}

const background = '#ffffff';
const soldColour = '#5f5f5f';
const stagePx = 30;
const padPx = 8;
const MINE = 4;

/**
 * The seat map on a canvas: thousands of seats cost a few draw calls, and a live change redraws
 * only the seats it touches. Status is shape as well as colour: available seats are filled
 * squares in their price tier's colour, held ones outlines with a slash, sold ones crosses, the buyer's
 * own a black square with a white centre.
 */
export function SeatMap({ layout, statuses, subscribe, mine, onPick }: SeatMapProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState(1);
  const [width, setWidth] = useState(0);
  const [focus, setFocus] = useState(() => firstAvailable(layout, statuses()));
  const cell = Math.max(3, Math.min(28, Math.floor((Math.max(width, 280) - 2 * padPx) / layout.cols))) * zoom;
  const draw = useRef<{ all(): void; seats(list: readonly number[]): void } | null>(null);
  const mineRef = useRef(mine);
  mineRef.current = mine;
  const [focused, setFocused] = useState(false);

  useEffect(() => {
    const wrap = wrapRef.current;
    if (wrap === null) return;
    setWidth(wrap.clientWidth);
    const observer = new ResizeObserver(() => setWidth(wrap.clientWidth));
    observer.observe(wrap);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null || width === 0) return;
    const started = performance.now();
    const cssW = layout.cols * cell + 2 * padPx;
    const cssH = layout.rows * cell + stagePx + 2 * padPx;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    canvas.width = Math.ceil(cssW * dpr);
    canvas.height = Math.ceil(cssH * dpr);
    canvas.style.width = `${cssW}px`;
    canvas.style.height = `${cssH}px`;
    const ctx = canvas.getContext('2d', { alpha: false });
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const renderer = makeRenderer(ctx, layout, cell, statuses, () => mineRef.current, cssW);
    draw.current = renderer;
    renderer.all();
    seatMapTimings.drawMs = performance.now() - started;
    performance.mark('seatmap-drawn');
    canvas.dataset.drawn = String(Date.now());
    // For tests and support: where on screen a seat is drawn (the middle of its square).
    (window as unknown as { __seatMapPoint: (id: string) => { x: number; y: number } | null }).__seatMapPoint = (id) => {
      const i = layout.index.get(id);
      const rect = canvas.getBoundingClientRect();
      if (i === undefined) return null;
      return { x: rect.left + padPx + ((layout.x[i] as number) + 0.5) * cell, y: rect.top + padPx + stagePx + ((layout.y[i] as number) + 0.5) * cell };
    };
    const unsubscribe = subscribe?.((changed) => {
      if (changed === 'ALL') renderer.all();
      else renderer.seats(changed);
    });
    return unsubscribe;
  }, [layout, cell, width, subscribe]);

  // Selection and focus changes redraw just what moved.
  const previousMine = useRef<ReadonlySet<number>>(new Set());
  useEffect(() => {
    const changed = new Set<number>([...previousMine.current, ...(mine ?? [])]);
    previousMine.current = new Set(mine ?? []);
    draw.current?.seats([...changed]);
  }, [mine]);

  const seatAt = (clientX: number, clientY: number): number => {
    const rect = canvasRef.current?.getBoundingClientRect();
    if (rect === undefined) return -1;
    const col = Math.floor((clientX - rect.left - padPx) / cell);
    const row = Math.floor((clientY - rect.top - padPx - stagePx) / cell);
    if (col < 0 || row < 0 || col >= layout.cols || row >= layout.rows) return -1;
    return layout.grid[row * layout.cols + col] ?? -1;
  };

  const onClick = (e: MouseEvent) => {
    const seat = seatAt(e.clientX, e.clientY);
    if (seat < 0 || onPick === undefined) return;
    setFocus(seat);
    onPick(seat);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key] as [number, number] | undefined;
    if (step !== undefined) {
      e.preventDefault();
      const next = neighbour(layout, focus < 0 ? 0 : focus, step[0], step[1]);
      if (next >= 0) {
        setFocus(next);
        scrollIntoView(wrapRef.current, padPx + (layout.x[next] as number) * cell, padPx + stagePx + (layout.y[next] as number) * cell, cell);
      }
    } else if ((e.key === 'Enter' || e.key === ' ') && focus >= 0 && onPick !== undefined) {
      e.preventDefault();
      onPick(focus);
    }
  };

  const describe = (i: number): string => {
    if (i < 0) return '';
    const box = layout.sections[layout.section[i] as number];
    const code = mine?.has(i) ? 'MINE' : (statusNames[statuses()[i] as number] ?? 'SOLD');
    return `${t('seatLabel', { section: box?.spec.name ?? '', row: layout.row[i] as number, number: layout.number[i] as number })}, ${t(`seatStatus${code}`)}, ${money(box?.spec.priceCents ?? 0)}`;
  };

  return (
    <div class="seatmap">
      <div class="seatmap-tools">
        <button type="button" onClick={() => setZoom((z) => Math.max(1, z / 2))} aria-label={t('zoomOut')} disabled={zoom <= 1}>−</button>
        <button type="button" onClick={() => setZoom((z) => Math.min(8, z * 2))} aria-label={t('zoomIn')} disabled={zoom >= 8}>+</button>
        {onPick !== undefined && <p id="seatmap-help" class="hint">{t('seatMapHelp')}</p>}
      </div>
      <div class="seatmap-scroll" ref={wrapRef}>
        {/* The keyboard cursor is drawn over the canvas, so it never hides a seat's own mark. */}
        {focused && focus >= 0 && (
          <div class="seat-cursor" aria-hidden="true" style={{
            left: `${padPx + (layout.x[focus] as number) * cell - 3}px`,
            top: `${padPx + stagePx + (layout.y[focus] as number) * cell - 3}px`,
            width: `${cell + 5}px`,
            height: `${cell + 5}px`,
          }} />
        )}
        <canvas
          ref={canvasRef}
          data-testid="seatmap"
          role={onPick === undefined ? 'img' : 'application'}
          aria-label={onPick === undefined ? `${t('seatMap')}: ${layout.seatIds.length}` : t('seatMap')}
          {...(onPick === undefined ? {} : { tabIndex: 0, 'aria-describedby': 'seatmap-help seatmap-focus', onClick, onKeyDown, onFocus: () => setFocused(true), onBlur: () => setFocused(false) })}
        />
      </div>
      {onPick !== undefined && <p id="seatmap-focus" class="seat-focus" aria-live="polite">{describe(focus)}</p>}
      <Legend layout={layout} />
    </div>
  );
}

function Legend({ layout }: { layout: SeatLayout }) {
  const tiers = [...new Map(layout.sections.map((b) => [b.tier, b.spec.priceCents])).entries()].sort((a, b) => a[0] - b[0]);
  return (
    <div class="legend" aria-label={t('legend')} role="group">
      <ul>
        <li><span class="key key-available" aria-hidden="true" /> {t('legendAvailable')}</li>
        <li><span class="key key-held" aria-hidden="true" /> {t('legendHeld')}</li>
        <li><span class="key key-sold" aria-hidden="true">✕</span> {t('legendSold')}</li>
        <li><span class="key key-mine" aria-hidden="true" /> {t('legendMine')}</li>
      </ul>
      <ul>
        {tiers.map(([tier, price]) => (
          <li key={tier}><span class="key" style={{ background: tierColour(tier) }} aria-hidden="true" /> {money(price)}</li>
        ))}
      </ul>
    </div>
  );
}

function makeRenderer(
  ctx: CanvasRenderingContext2D,
  layout: SeatLayout,
  cell: number,
  statuses: () => Uint8Array,
  mine: () => ReadonlySet<number> | undefined,
  cssW: number,
) {
  const top = padPx + stagePx;
  const size = cell > 4 ? cell - 1 : cell;
  const colours = layout.sections.map((b) => tierColour(b.tier));
  const px = (i: number) => padPx + (layout.x[i] as number) * cell;
  const py = (i: number) => top + (layout.y[i] as number) * cell;

  const cross = (x: number, y: number) => {
    const m = Math.max(0.5, size * 0.15);
    ctx.moveTo(x + m, y + m);
    ctx.lineTo(x + size - m, y + size - m);
    ctx.moveTo(x + size - m, y + m);
    ctx.lineTo(x + m, y + size - m);
  };

  const one = (i: number) => {
    const x = px(i);
    const y = py(i);
    ctx.fillStyle = background;
    ctx.fillRect(x, y, cell, cell);
    const code = mine()?.has(i) ? MINE : (statuses()[i] as number);
    const colour = colours[layout.section[i] as number] as string;
    if (code === 0) {
      ctx.fillStyle = colour;
      ctx.fillRect(x, y, size, size);
    } else if (code === 1) {
      // An outline with a slash: unmistakable next to a filled square, whatever the colour.
      const lw = Math.max(1, Math.round(size / 9));
      ctx.strokeStyle = colour;
      ctx.lineWidth = lw;
      ctx.strokeRect(x + lw / 2, y + lw / 2, size - lw, size - lw);
      ctx.beginPath();
      ctx.moveTo(x + lw, y + size - lw);
      ctx.lineTo(x + size - lw, y + lw);
      ctx.stroke();
    } else if (code === MINE) {
      ctx.fillStyle = '#111111';
      ctx.fillRect(x, y, size, size);
      const inset = Math.max(1, Math.floor(size / 3));
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(x + inset, y + inset, Math.max(1, size - 2 * inset), Math.max(1, size - 2 * inset));
    } else {
      ctx.strokeStyle = soldColour;
      ctx.lineWidth = Math.max(1, size / 6);
      ctx.beginPath();
      cross(x, y);
      ctx.stroke();
    }
  };

  return {
    all() {
      ctx.fillStyle = background;
      ctx.fillRect(0, 0, cssW, top + layout.rows * cell + padPx);
      // Stage, and section names where there is room.
      ctx.fillStyle = '#d9d9d9';
      // Where the venue geometry puts it: best available measures from the middle of its front edge.
      ctx.fillRect(padPx + layout.stage.x * cell, padPx, layout.stage.width * cell, stagePx - 10);
      ctx.fillStyle = '#222222';
      ctx.font = '12px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText(t('stage'), padPx + (layout.stage.x + layout.stage.width / 2) * cell, padPx + 14);
      ctx.textAlign = 'left';
      if (cell >= 4) {
        ctx.font = `${Math.min(14, cell * 1.5)}px system-ui, sans-serif`;
        for (const box of layout.sections) ctx.fillText(box.spec.name, padPx + box.x * cell, top + (box.y - 0.4) * cell);
      }
      // Available seats by tier with one fill style each; crosses in one path; the rest one by one.
      const s = statuses();
      const m = mine();
      const others: number[] = [];
      let lastColour = '';
      for (let i = 0; i < layout.seatIds.length; i++) {
        if (s[i] !== 0 || m?.has(i)) {
          others.push(i);
          continue;
        }
        const colour = colours[layout.section[i] as number] as string;
        if (colour !== lastColour) ctx.fillStyle = lastColour = colour;
        ctx.fillRect(px(i), py(i), size, size);
      }
      ctx.strokeStyle = soldColour;
      ctx.lineWidth = Math.max(1, size / 6);
      ctx.beginPath();
      const rest: number[] = [];
      for (const i of others) {
        if ((s[i] === 2 || s[i] === 3) && !m?.has(i)) cross(px(i), py(i));
        else rest.push(i);
      }
      ctx.stroke();
      for (const i of rest) one(i);
    },
    seats(list: readonly number[]) {
      for (const i of list) one(i);
    },
  };
}

function firstAvailable(layout: SeatLayout, statuses: Uint8Array): number {
  const i = statuses.indexOf(0);
  return i >= 0 ? i : layout.seatIds.length > 0 ? 0 : -1;
}

/** The nearest seat from `from` in a direction, across aisles and into the next section. */
function neighbour(layout: SeatLayout, from: number, dx: number, dy: number): number {
  const x0 = layout.x[from] as number;
  const y0 = layout.y[from] as number;
  const reach = Math.max(layout.cols, layout.rows);
  for (let d = 1; d <= reach; d++) {
    // Straight ahead first, then fanning out sideways so a shorter row still has a neighbour.
    for (let side = 0; side <= d; side++) {
      for (const sign of side === 0 ? [0] : [-1, 1]) {
        const x = x0 + dx * d + (dy !== 0 ? side * sign : 0);
        const y = y0 + dy * d + (dx !== 0 ? side * sign : 0);
        if (x < 0 || y < 0 || x >= layout.cols || y >= layout.rows) continue;
        const seat = layout.grid[y * layout.cols + x] ?? -1;
        if (seat >= 0) return seat;
      }
    }
  }
  return -1;
}

/** Scrolls the map so a seat moved to by keyboard stays visible. */
function scrollIntoView(wrap: HTMLDivElement | null, x: number, y: number, cell: number): void {
  if (wrap === null) return;
  if (x < wrap.scrollLeft) wrap.scrollLeft = x - cell;
  else if (x + cell > wrap.scrollLeft + wrap.clientWidth) wrap.scrollLeft = x + 2 * cell - wrap.clientWidth;
  if (y < wrap.scrollTop) wrap.scrollTop = y - cell;
  else if (y + cell > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = y + 2 * cell - wrap.clientHeight;
}

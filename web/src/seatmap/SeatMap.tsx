import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
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
const labelInk = '#222222';
/** Cell sizes (CSS px) from which row numbers, and seat numbers, are drawn: smaller ones could not be read. */
const rowLabelsFrom = 10;
const seatNumbersFrom = 16;
/** One column of cells each side of the map holds the row numbers. */
const leftOf = (cell: number) => padPx + cell;
/** Canvas pixels at most: a big show zoomed in is drawn at a lower pixel ratio rather than not at all. */
const canvasPixelsMax = 16_000_000;

/**
 * The seat map on a canvas: thousands of seats cost a few draw calls, and a live change redraws
 * only the seats it touches. Status is shape as well as colour: available seats are filled
 * squares in their price tier's colour, held ones outlines with a slash, sold ones crosses, the buyer's
 * own a black square with a white centre; an accessible seat that is free carries the wheelchair
 * symbol. Row numbers stand at both ends of each row and seat numbers above each section once the
 * cells are big enough to read them. A full draw goes in slices of a few milliseconds per frame.
 */
export function SeatMap({ layout, statuses, subscribe, mine, onPick }: SeatMapProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState(1);
  const [width, setWidth] = useState(0);
  const [focus, setFocus] = useState(() => firstAvailable(layout, statuses()));
  // Two more columns than the seats need: the row numbers at both ends.
  const cell = Math.max(3, Math.min(28, Math.floor((Math.max(width, 280) - 2 * padPx) / (layout.cols + 2)))) * zoom;
  const left = leftOf(cell);
  const accessible = useMemo(() => accessibleSeats(layout), [layout]);
  const draw = useRef<Renderer | null>(null);
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
    const cssW = (layout.cols + 2) * cell + 2 * padPx;
    const cssH = layout.rows * cell + stagePx + 2 * padPx;
    const dpr = Math.max(0.25, Math.min(window.devicePixelRatio || 1, 2, Math.sqrt(canvasPixelsMax / (cssW * cssH))));
    canvas.width = Math.ceil(cssW * dpr);
    canvas.height = Math.ceil(cssH * dpr);
    canvas.style.width = `${cssW}px`;
    canvas.style.height = `${cssH}px`;
    const ctx = canvas.getContext('2d', { alpha: false });
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const renderer = makeRenderer(ctx, layout, cell, statuses, () => mineRef.current, accessible, cssW, (longest) => {
      seatMapTimings.drawMs = performance.now() - started;
      seatMapTimings.longestSliceMs = longest;
      performance.mark('seatmap-drawn');
      canvas.dataset.drawn = String(Date.now());
    });
    draw.current = renderer;
    renderer.all();
    // For tests and support: where on screen a seat is drawn (the middle of its square).
    (window as unknown as { __seatMapPoint: (id: string) => { x: number; y: number } | null }).__seatMapPoint = (id) => {
      const i = layout.index.get(id);
      const rect = canvas.getBoundingClientRect();
      if (i === undefined) return null;
      return { x: rect.left + left + ((layout.x[i] as number) + 0.5) * cell, y: rect.top + padPx + stagePx + ((layout.y[i] as number) + 0.5) * cell };
    };
    const unsubscribe = subscribe?.((changed) => {
      if (changed === 'ALL') renderer.all();
      else renderer.seats(changed);
    });
    return () => {
      renderer.cancel();
      unsubscribe?.();
    };
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
    const col = Math.floor((clientX - rect.left - left) / cell);
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
        scrollIntoView(wrapRef.current, left + (layout.x[next] as number) * cell, padPx + stagePx + (layout.y[next] as number) * cell, cell);
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
    const name = t('seatNameOne', { section: box?.spec.name ?? '', row: layout.row[i] as number, number: layout.number[i] as number });
    return [name, ...(accessible[i] === 1 ? [t('seatAccessible')] : []), t(`seatStatus${code}`), money(box?.spec.priceCents ?? 0)].join(t('clauseSeparator'));
  };

  return (
    <div class="seatmap">
      <div class="seatmap-tools">
        <button type="button" onClick={() => setZoom((z) => Math.max(1, z / 2))} aria-label={t('zoomOut')} disabled={zoom <= 1}>−</button>
        <button type="button" onClick={() => setZoom((z) => Math.min(8, z * 2))} aria-label={t('zoomIn')} disabled={zoom >= 8}>+</button>
        {/* The keyboard's part of the help is hidden on touch screens (styles.css). */}
        {onPick !== undefined && <p id="seatmap-help" class="hint"><span class="keyboard-help">{t('seatMapHelp')} </span>{t('seatMapTapHelp')}</p>}
      </div>
      <div class="seatmap-scroll" ref={wrapRef}>
        {/* The keyboard cursor is drawn over the canvas, so it never hides a seat's own mark. */}
        {focused && focus >= 0 && (
          <div class="seat-cursor" aria-hidden="true" style={{
            left: `${left + (layout.x[focus] as number) * cell - 3}px`,
            top: `${padPx + stagePx + (layout.y[focus] as number) * cell - 3}px`,
            width: `${cell + 5}px`,
            height: `${cell + 5}px`,
          }} />
        )}
        <canvas
          ref={canvasRef}
          data-testid="seatmap"
          role={onPick === undefined ? 'img' : 'application'}
          aria-label={onPick === undefined ? t('seatMapPreview', { n: layout.seatIds.length }) : t('seatMap')}
          {...(onPick === undefined ? {} : { tabIndex: 0, 'aria-describedby': 'seatmap-help seatmap-focus', onClick, onKeyDown, onFocus: () => setFocused(true), onBlur: () => setFocused(false) })}
        />
      </div>
      {onPick !== undefined && <p id="seatmap-focus" class="seat-focus" aria-live="polite">{describe(focus)}</p>}
      <Legend layout={layout} accessible={accessible.includes(1)} />
    </div>
  );
}

function Legend({ layout, accessible }: { layout: SeatLayout; accessible: boolean }) {
  const tiers = [...new Map(layout.sections.map((b) => [b.tier, b.spec.priceCents])).entries()].sort((a, b) => a[0] - b[0]);
  return (
    <div class="legend" aria-label={t('legend')} role="group">
      <ul>
        <li><span class="key key-available" aria-hidden="true" /> {t('legendAvailable')}</li>
        <li><span class="key key-held" aria-hidden="true" /> {t('legendHeld')}</li>
        <li><span class="key key-sold" aria-hidden="true">✕</span> {t('legendSold')}</li>
        <li><span class="key key-mine" aria-hidden="true" /> {t('legendMine')}</li>
        {accessible && <li data-testid="legend-accessible"><WheelchairKey /> {t('legendAccessible')}</li>}
      </ul>
      <ul>
        {tiers.map(([tier, price]) => (
          <li key={tier}><span class="key" style={{ background: tierColour(tier) }} aria-hidden="true" /> {money(price)}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Work per frame of a full draw, so it never blocks the page for long whatever the show's size:
 * at most `sliceBudgetMs` of drawing calls, and at most `stepsPerFrame` steps, since the canvas
 * rasterizes the calls later in the frame, at a cost the calls' own time does not show.
 */
const sliceBudgetMs = 8;
const seatsPerStep = 1024;
const stepsPerFrame = 4;

interface Renderer {
  /** Draws everything again, in slices of at most about `sliceBudgetMs` per animation frame. */
  all(): void;
  /** Redraws these seats now (a live change, the selection, the cursor). */
  seats(list: readonly number[]): void;
  /** Stops a draw in progress (the map is being drawn anew, or goes away). */
  cancel(): void;
}

/** The legend's wheelchair symbol: the same drawing as on the map, on an available seat's colour. */
function WheelchairKey() {
  return (
    <svg class="key" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
      <rect width="14" height="14" fill={tierColour(0)} />
      <g stroke={inkOn(tierColour(0))} fill="none" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round">
        <path d="M6.3 4.2V7.8H9.5L11.2 11.5M6.3 5.7H9" />
        <path d="M8 11.6A2.9 2.9 0 1 1 3.6 7.2" />
      </g>
      <circle cx="6.6" cy="2.4" r="1.3" fill={inkOn(tierColour(0))} />
    </svg>
  );
}

function makeRenderer(
  ctx: CanvasRenderingContext2D,
  layout: SeatLayout,
  cell: number,
  statuses: () => Uint8Array,
  mine: () => ReadonlySet<number> | undefined,
  accessible: Uint8Array,
  cssW: number,
  onDone: (longestSliceMs: number) => void,
): Renderer {
  const top = padPx + stagePx;
  const left = leftOf(cell);
  const size = cell > 4 ? cell - 1 : cell;
  const colours = layout.sections.map((b) => tierColour(b.tier));
  const inks = layout.sections.map((b) => inkOn(tierColour(b.tier)));
  const px = (i: number) => left + (layout.x[i] as number) * cell;
  const py = (i: number) => top + (layout.y[i] as number) * cell;
  const iconFrom = 9;
  let frame = 0;

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
      if (accessible[i] === 1 && size >= iconFrom) wheelchair(ctx, x, y, size, inks[layout.section[i] as number] as string);
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

  /** Seats from..to: available ones by tier with one fill style each, crosses in one path, the rest one by one. */
  const range = (from: number, to: number) => {
    const s = statuses();
    const m = mine();
    const others: number[] = [];
    const icons: number[] = [];
    let lastColour = '';
    for (let i = from; i < to; i++) {
      if (s[i] !== 0 || m?.has(i)) {
        others.push(i);
        continue;
      }
      const colour = colours[layout.section[i] as number] as string;
      if (colour !== lastColour) ctx.fillStyle = lastColour = colour;
      ctx.fillRect(px(i), py(i), size, size);
      if (accessible[i] === 1) icons.push(i);
    }
    if (size >= iconFrom) for (const i of icons) wheelchair(ctx, px(i), py(i), size, inks[layout.section[i] as number] as string);
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
  };

  /** Row numbers at both ends of each row, seat numbers above the first row, where cells are big enough to read them. */
  const labels = (box: SeatLayout['sections'][number]) => {
    const { spec } = box;
    const x0 = left + box.x * cell;
    const y0 = top + box.y * cell;
    ctx.fillStyle = labelInk;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    if (cell >= rowLabelsFrom) {
      ctx.font = `${Math.min(13, Math.floor(cell * 0.6))}px system-ui, sans-serif`;
      for (let r = 1; r <= spec.rows; r++) {
        const y = y0 + (r - 0.5) * cell;
        ctx.fillText(String(r), x0 - cell / 2, y);
        ctx.fillText(String(r), x0 + (spec.seatsPerRow + 0.5) * cell, y);
      }
    }
    if (cell >= seatNumbersFrom) {
      ctx.font = `${Math.min(12, Math.floor(cell * 0.45))}px system-ui, sans-serif`;
      for (let n = 1; n <= spec.seatsPerRow; n++) ctx.fillText(String(n), x0 + (n - 0.5) * cell, y0 - cell / 2);
    }
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
  };

  return {
    all() {
      cancelAnimationFrame(frame);
      // From here to 'seatmap-drawn' no task should be long (the browser tests watch).
      performance.mark('seatmap-draw-start');
        ctx.fillStyle = background;
      ctx.fillRect(0, 0, cssW, top + layout.rows * cell + padPx);
      // Stage, and section names where there is room (above the seat numbers when those are shown).
      ctx.fillStyle = '#d9d9d9';
      // Where the venue geometry puts it: best available measures from the middle of its front edge.
      ctx.fillRect(padPx + layout.stage.x * cell, padPx, layout.stage.width * cell, stagePx - 10);
      ctx.fillStyle = labelInk;
      ctx.font = '12px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText(t('stage'), padPx + (layout.stage.x + layout.stage.width / 2) * cell, padPx + 14);
      ctx.textAlign = 'left';
      if (cell >= 4) {
        ctx.font = `${Math.min(14, cell * 1.5)}px system-ui, sans-serif`;
        const above = cell >= seatNumbersFrom ? 1.3 : 0.4;
        for (const box of layout.sections) ctx.fillText(box.spec.name, left + box.x * cell, top + (box.y - above) * cell);
      }
      // The rest in steps, as many per frame as fit the budget: a big show's draw never freezes the page.
      const steps: (() => void)[] = [];
      for (let from = 0; from < layout.seatIds.length; from += seatsPerStep) steps.push(() => range(from, Math.min(layout.seatIds.length, from + seatsPerStep)));
      if (cell >= rowLabelsFrom) for (const box of layout.sections) steps.push(() => labels(box));
      let next = 0;
      let longest = 0;
      const slice = () => {
        const started = performance.now();
        const last = next + stepsPerFrame;
        while (next < steps.length && next < last) {
          (steps[next++] as () => void)();
          if (performance.now() - started >= sliceBudgetMs) break;
        }
        longest = Math.max(longest, performance.now() - started);
        if (next < steps.length) frame = requestAnimationFrame(slice);
        else onDone(longest);
      };
      slice();
    },
    seats(list: readonly number[]) {
      for (const i of list) one(i);
    },
    cancel() {
      cancelAnimationFrame(frame);
    },
  };
}

/**
 * The wheelchair symbol in a seat's square (a pictogram, so an accessible seat is told apart by
 * shape, not colour): head, back and seat, and the open wheel.
 */
function wheelchair(ctx: CanvasRenderingContext2D, x: number, y: number, s: number, ink: string): void {
  ctx.save();
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.lineWidth = Math.max(1, s * 0.1);
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.beginPath();
  ctx.arc(x + s * 0.47, y + s * 0.17, s * 0.09, 0, 2 * Math.PI);
  ctx.fill();
  ctx.beginPath();
  ctx.moveTo(x + s * 0.45, y + s * 0.3);
  ctx.lineTo(x + s * 0.45, y + s * 0.56);
  ctx.lineTo(x + s * 0.68, y + s * 0.56);
  ctx.lineTo(x + s * 0.8, y + s * 0.82);
  ctx.moveTo(x + s * 0.45, y + s * 0.41);
  ctx.lineTo(x + s * 0.64, y + s * 0.41);
  ctx.moveTo(x + s * 0.58, y + s * 0.83);
  ctx.arc(x + s * 0.42, y + s * 0.68, s * 0.21, 0.25 * Math.PI, 1.3 * Math.PI);
  ctx.stroke();
  ctx.restore();
}

/** Black or white, whichever reads better on a tier colour (WCAG contrast). */
function inkOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}

/** Whether each seat is an accessible one (the sections list them by row and number). */
export function accessibleSeats(layout: SeatLayout): Uint8Array {
  const flags = new Uint8Array(layout.seatIds.length);
  for (const box of layout.sections) {
    for (const place of box.spec.accessible ?? []) {
      const i = layout.index.get(`${box.spec.id}-${place.row}-${place.number}`);
      if (i !== undefined) flags[i] = 1;
    }
  }
  return flags;
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

import { t, type MessageKey } from '../i18n';
import { en } from '../i18n/en';

export interface Pulse {
  readonly stepSeconds: number;
  readonly points: readonly { readonly at: string; readonly holds: number; readonly refusals: Readonly<Record<string, number>> }[];
}

/** Colours of the refusal codes, in order of size; holds are always the first colour. */
const palette = ['#2563eb', '#dc2626', '#d97706', '#7c3aed', '#0d9488', '#db2777', '#65a30d', '#475569'];
const width = 600;
const height = 160;
const pad = { left: 36, right: 8, top: 8, bottom: 22 };

/** A refusal code's short name where the catalogs have one, else the code itself. */
function codeLabel(code: string): string {
  const key = `pulseCode${code}`;
  return Object.hasOwn(en, key) ? t(key as MessageKey) : code;
}

/**
 * Holds per second and refusals per second by code over the last minutes, as stacked bars (one
 * bar per bucket): the server's own figures (GET /admin/shows/{id}/stats, `pulse`). An SVG with a
 * table beside it for screen readers.
 */
export function SalePulseChart({ pulse }: { pulse: Pulse }) {
  const codes = new Map<string, number>();
  for (const p of pulse.points) for (const [code, n] of Object.entries(p.refusals)) codes.set(code, (codes.get(code) ?? 0) + n);
  const order = [...codes].sort((a, b) => b[1] - a[1]).map(([code]) => code);
  const perSecond = (n: number) => n / pulse.stepSeconds;
  const totals = pulse.points.map((p) => perSecond(p.holds + Object.values(p.refusals).reduce((a, b) => a + b, 0)));
  const top = Math.max(1, ...totals);
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const barW = plotW / Math.max(1, pulse.points.length);
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const colourOf = (code: string) => palette[(order.indexOf(code) + 1) % palette.length] as string;
  const minutes = Math.round((pulse.points.length * pulse.stepSeconds) / 60);
  const sum = (key: 'holds' | string) => pulse.points.reduce((n, p) => n + (key === 'holds' ? p.holds : (p.refusals[key] ?? 0)), 0);
  return (
    <figure class="pulse" data-testid="sale-pulse">
      <figcaption>{t('pulseTitle', { minutes })}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={t('pulseTitle', { minutes })} data-testid="sale-pulse-chart">
        <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} stroke="#94a3b8" />
        <text x={pad.left - 4} y={y(top) + 4} text-anchor="end" font-size="11">{top.toFixed(top < 10 ? 1 : 0)}</text>
        <text x={pad.left - 4} y={y(0)} text-anchor="end" font-size="11">0</text>
        <text x={pad.left} y={height - 6} font-size="11">{t('pulseAgo', { minutes })}</text>
        <text x={width - pad.right} y={height - 6} text-anchor="end" font-size="11">{t('pulseNow')}</text>
        {pulse.points.map((p, i) => {
          let base = 0;
          const stack = [['HELD', p.holds] as const, ...order.map((code) => [code, p.refusals[code] ?? 0] as const)].filter(([, n]) => n > 0);
          return stack.map(([code, n]) => {
            const v = perSecond(n);
            const rect = <rect key={`${i}-${code}`} x={pad.left + i * barW + 0.5} width={Math.max(1, barW - 1)} y={y(base + v)} height={y(base) - y(base + v)} fill={code === 'HELD' ? palette[0] : colourOf(code)} />;
            base += v;
            return rect;
          });
        })}
      </svg>
      <ul class="pulse-legend">
        <li><span class="swatch" style={{ background: palette[0] }} /> {t('pulseHolds')}: <span data-testid="pulse-holds">{sum('holds')}</span></li>
        {order.map((code) => (
          <li key={code} data-testid={`pulse-refusal-${code}`}><span class="swatch" style={{ background: colourOf(code) }} /> {t('pulseRefused', { code: codeLabel(code) })}: {sum(code)}</li>
        ))}
      </ul>
    </figure>
  );
}

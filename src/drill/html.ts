import type { DrillReport } from './report.js';
import { steps, type Histogram, type TimelinePoint } from './stats.js';

const width = 760;
const height = 300;
const margin = { left: 64, right: 16, top: 16, bottom: 40 };

/** A self-contained page: the figures, the audit, and an inline SVG chart of seats over time (no scripts, no CDN). */
export function renderHtml(report: DrillReport): string {
  const r = report.result;
  const rows = steps.map((s) => {
    const x = report.steps[s];
    return `<tr><td>${s}</td><td>${x.count}</td><td>${x.p50Ms.toFixed(1)}</td><td>${x.p99Ms.toFixed(1)}</td><td>${x.maxMs.toFixed(1)}</td></tr>`;
  }).join('');
  const refusals = report.refusals.length === 0
    ? '<p>None.</p>'
    : `<table><tr><th>step</th><th>code</th><th>count</th></tr>${report.refusals.map((x) => `<tr><td>${esc(x.step)}</td><td>${esc(x.code)}</td><td>${x.count}</td></tr>`).join('')}</table>`;
  const checks = report.audit.checks.map((c) => `<tr class="${c.passed ? 'ok' : 'fail'}"><td>${c.passed ? 'ok' : 'FAIL'}</td><td>${esc(c.name)}</td><td>${esc(c.detail)}</td></tr>`).join('');
  const sold = r.soldOut ? `Sold out in ${r.secondsToSoldOut} s` : `Not sold out: ${r.seatsTicketed} of ${report.show.seats} seats in ${r.secondsRun} s`;
  const headline = report.phase === null ? sold : `${report.drill} drill: ${report.passed ? 'passed' : 'FAILED'}`;
  const phase = report.phase === null ? '' : `<h2>The ${esc(report.drill)} phase</h2>
<p>${esc(report.phase.summary)}</p>
<table>${Object.entries(report.phase.figures).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v === null ? 'n/a' : String(v))}</td></tr>`).join('')}</table>
<table class="audit"><tr><th></th><th>drill check</th><th>detail</th></tr>${report.phase.checks.map((c) => `<tr class="${c.passed ? 'ok' : 'fail'}"><td>${c.passed ? 'ok' : 'FAIL'}</td><td>${esc(c.name)}</td><td>${esc(c.detail)}</td></tr>`).join('')}</table>
<h2>Then the rest of the show, sold out: ${esc(sold)}</h2>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>TicketRush ${esc(report.drill)} drill ${esc(report.startedAt)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 820px; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
tr.ok td:first-child { color: #1a7f37; } tr.fail td { color: #b42318; font-weight: bold; }
.audit td { text-align: left; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
</style>
</head>
<body>
<h1>${esc(headline)}</h1>
${phase}
<p>${report.show.seats} seats, ${report.options.buyers} buyers, ${report.options.seatsPerHold} seats a hold (${report.options.pick === 'seats' ? 'named seats' : 'best available'}), server ${esc(report.server.url)}${report.server.embedded ? ' (embedded)' : ''}, started ${esc(report.startedAt)}.</p>
<p>Per second: ${r.perSecond.holds} holds, ${r.perSecond.orders} orders, ${r.perSecond.payments} payments, ${r.perSecond.seatsTicketed} seats ticketed.
CPU while selling (${r.secondsRun} s): drill ${r.cpuSeconds.client} s, server ${r.cpuSeconds.server ?? 'not measured'} s.
Setup: show created in ${report.setup.createShowSeconds} s, buyers signed up in ${report.setup.signUpSeconds} s.</p>
<h2>Seats over time</h2>
${chart(report.timeline, report.show.seats)}
<h2>Refusals and goodput over time</h2>
${rateChart(report.timeline)}
<h2>Latency histogram</h2>
${histogramChart(report.histogram)}
<h2>Steps (ms)</h2>
<table><tr><th>step</th><th>count</th><th>p50</th><th>p99</th><th>max</th></tr>${rows}</table>
<p>Latencies of the answers that succeeded; <em>ticket</em> is from the payment's acceptance to the order seen TICKETED (polled).</p>
<h2>Refusals by code</h2>
${refusals}
<h2>Audit: ${report.audit.passed ? 'passed' : 'FAILED'}</h2>
<table class="audit"><tr><th></th><th>check</th><th>detail</th></tr>${checks}</table>
</body>
</html>
`;
}

const series: { key: 'held' | 'paid' | 'ticketed'; label: string; color: string }[] = [
  { key: 'held', label: 'held', color: '#9aa5b1' },
  { key: 'paid', label: 'paid', color: '#e09f3e' },
  { key: 'ticketed', label: 'sold (ticketed)', color: '#2563eb' },
];

function chart(points: readonly TimelinePoint[], seats: number): string {
  const last = points[points.length - 1];
  const tMax = Math.max(last?.t ?? 1, 0.001);
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const x = (t: number): number => margin.left + (t / tMax) * plotW;
  const y = (v: number): number => margin.top + plotH - (v / Math.max(seats, 1)) * plotH;
  const lines = series.map((s) => {
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p[s.key]).toFixed(1)}`).join('');
    return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.key === 'ticketed' ? 2.5 : 1.5}"/>`;
  }).join('');
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = Math.round(seats * f);
    return `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${margin.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
  }).join('');
  const xTicks = Array.from({ length: 6 }, (_, i) => (tMax * i) / 5).map((t) =>
    `<text x="${x(t)}" y="${height - margin.bottom + 16}" text-anchor="middle">${t.toFixed(t < 10 ? 1 : 0)}</text>`).join('');
  const legend = series.map((s, i) => `<rect x="${margin.left + 10 + i * 130}" y="${margin.top + 4}" width="12" height="3" fill="${s.color}"/><text x="${margin.left + 26 + i * 130}" y="${margin.top + 9}">${s.label}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Seats held, paid and sold over time">
${yTicks}${xTicks}
<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#888"/>
<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#888"/>
${lines}${legend}
<text x="${margin.left + plotW / 2}" y="${height - 6}" text-anchor="middle">seconds since the first hold</text>
</svg>`;
}

const codeColors = ['#b42318', '#e09f3e', '#7c3aed', '#0e7490', '#9aa5b1'];

/** Per second between samples: successful answers (goodput) and refusals of the most frequent codes. */
function rateChart(points: readonly TimelinePoint[]): string {
  const totals = new Map<string, number>();
  for (const p of points) for (const [code, n] of Object.entries(p.refusedByCode ?? {})) totals.set(code, (totals.get(code) ?? 0) + n);
  const codes = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([code]) => code);
  const rows: { t: number; good: number; byCode: number[] }[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as TimelinePoint;
    const b = points[i] as TimelinePoint;
    const dt = Math.max(b.t - a.t, 0.001);
    rows.push({ t: b.t, good: ((b.succeeded ?? 0) - (a.succeeded ?? 0)) / dt, byCode: codes.map((c) => (b.refusedByCode?.[c] ?? 0) / dt) });
  }
  const tMax = Math.max(rows[rows.length - 1]?.t ?? 1, 0.001);
  const vMax = Math.max(1, ...rows.map((r) => Math.max(r.good, ...r.byCode)));
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const x = (t: number): number => margin.left + (t / tMax) * plotW;
  const y = (v: number): number => margin.top + plotH - (v / vMax) * plotH;
  const path = (value: (r: (typeof rows)[number]) => number): string => rows.map((r, i) => `${i === 0 ? 'M' : 'L'}${x(r.t).toFixed(1)},${y(value(r)).toFixed(1)}`).join('');
  const series = [{ label: 'successful answers/s', color: '#2563eb', d: path((r) => r.good) }, ...codes.map((code, k) => ({ label: `${code}/s`, color: codeColors[k] ?? '#444', d: path((r) => r.byCode[k] ?? 0) }))];
  const yTicks = [0, 0.5, 1].map((f) => `<text x="${margin.left - 6}" y="${y(vMax * f) + 4}" text-anchor="end">${Math.round(vMax * f)}</text><line x1="${margin.left}" x2="${width - margin.right}" y1="${y(vMax * f)}" y2="${y(vMax * f)}" stroke="#eee"/>`).join('');
  const legend = series.map((s, i) => `<rect x="${margin.left + 10 + i * 150}" y="${margin.top + 4}" width="12" height="3" fill="${s.color}"/><text x="${margin.left + 26 + i * 150}" y="${margin.top + 9}">${esc(s.label)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Successful answers and refusals per second over time">
${yTicks}<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#888"/>
${series.map((s) => `<path d="${s.d}" fill="none" stroke="${s.color}" stroke-width="1.8"/>`).join('')}${legend}
<text x="${margin.left + plotW / 2}" y="${height - 6}" text-anchor="middle">seconds since the first hold (${codes.length === 0 ? 'no refusals' : 'refusals by code'})</text>
</svg>`;
}

const stepColors: Readonly<Record<string, string>> = { hold: '#2563eb', order: '#e09f3e', pay: '#1a7f37', ticket: '#9aa5b1', queue: '#7c3aed', admit: '#0e7490' };

/** Grouped bars: for each latency bucket, the share of each step's successful answers in it. */
function histogramChart(h: Histogram): string {
  const entries = Object.entries(h.counts).filter((e): e is [string, readonly number[]] => e[1] !== undefined);
  if (entries.length === 0) return '<p>No answers.</p>';
  const buckets = h.boundsMs.length + 1;
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const groupW = plotW / buckets;
  const barW = (groupW - 4) / entries.length;
  const shares = entries.map(([step, counts]) => {
    const total = counts.reduce((a, b) => a + b, 0) || 1;
    return { step, shares: counts.map((c) => c / total) };
  });
  const bars = shares.flatMap((s, k) => s.shares.map((share, i) => {
    const hgt = share * plotH;
    return `<rect x="${(margin.left + i * groupW + 2 + k * barW).toFixed(1)}" y="${(margin.top + plotH - hgt).toFixed(1)}" width="${barW.toFixed(1)}" height="${hgt.toFixed(1)}" fill="${stepColors[s.step] ?? '#444'}"/>`;
  })).join('');
  const labels = Array.from({ length: buckets }, (_, i) => `<text x="${(margin.left + i * groupW + groupW / 2).toFixed(1)}" y="${height - margin.bottom + 16}" text-anchor="middle">${i < h.boundsMs.length ? `≤${h.boundsMs[i]}` : `>${h.boundsMs[h.boundsMs.length - 1]}`}</text>`).join('');
  const legend = shares.map((s, i) => `<rect x="${margin.left + 10 + i * 90}" y="${margin.top + 4}" width="12" height="8" fill="${stepColors[s.step] ?? '#444'}"/><text x="${margin.left + 26 + i * 90}" y="${margin.top + 12}">${esc(s.step)}</text>`).join('');
  const yTicks = [0, 0.5, 1].map((f) => `<text x="${margin.left - 6}" y="${margin.top + plotH - f * plotH + 4}" text-anchor="end">${Math.round(f * 100)}%</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Latency histogram per step">
${yTicks}<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#888"/>
${bars}${legend}${labels}
<text x="${margin.left + plotW / 2}" y="${height - 6}" text-anchor="middle">latency bucket (ms), share of each step's successful answers</text>
</svg>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

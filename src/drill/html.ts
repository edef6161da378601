import type { DrillReport } from './report.js';
import { steps, type TimelinePoint } from './stats.js';

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
  const headline = r.soldOut ? `Sold out in ${r.secondsToSoldOut} s` : `Not sold out: ${r.seatsTicketed} of ${report.show.seats} seats in ${r.secondsRun} s`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>TicketRush sell-out drill ${esc(report.startedAt)}</title>
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
<p>${report.show.seats} seats, ${report.options.buyers} buyers, ${report.options.seatsPerHold} seats a hold (${report.options.pick === 'seats' ? 'named seats' : 'best available'}), server ${esc(report.server.url)}${report.server.embedded ? ' (embedded)' : ''}, started ${esc(report.startedAt)}.</p>
<p>Per second: ${r.perSecond.holds} holds, ${r.perSecond.orders} orders, ${r.perSecond.payments} payments, ${r.perSecond.seatsTicketed} seats ticketed.
CPU while selling (${r.secondsRun} s): drill ${r.cpuSeconds.client} s, server ${r.cpuSeconds.server ?? 'not measured'} s.
Setup: show created in ${report.setup.createShowSeconds} s, buyers signed up in ${report.setup.signUpSeconds} s.</p>
<h2>Seats over time</h2>
${chart(report.timeline, report.show.seats)}
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

const series: { key: keyof Omit<TimelinePoint, 't'>; label: string; color: string }[] = [
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

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * ops/grafana/ticketrush.json parses, and every metric it queries is one the server exports
 * (scraped from a real test server's /metrics) or a recording rule of ops/prometheus/recording.yml
 * (whose own inputs are checked the same way).
 */
const dashboard = JSON.parse(readFileSync(new URL('../../ops/grafana/ticketrush.json', import.meta.url), 'utf8')) as {
  title: string; uid: string; panels: { title: string; targets: { expr: string }[] }[];
};
const recording = readFileSync(new URL('../../ops/prometheus/recording.yml', import.meta.url), 'utf8');
const alerts = readFileSync(new URL('../../ops/prometheus/alerts.yml', import.meta.url), 'utf8');

/** PromQL words that are not metric names. */
const promql = new Set(['sum', 'max', 'min', 'avg', 'by', 'without', 'rate', 'increase', 'histogram_quantile', 'time', 'or', 'and', 'unless', 'bool', 'on', 'ignoring', 'group_left', 'group_right', 'count', 'le', 'offset']);

/** Metric names in a PromQL expression: identifiers not inside {...} or [...] or quotes, nor functions, keywords or labels. */
function metricsOf(expr: string): string[] {
  const bare = expr.replace(/"[^"]*"/g, '""').replace(/\{[^}]*\}/g, '').replace(/\[[^\]]*\]/g, '').replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !promql.has(w) && !/^\d/.test(w) && !/^(humanize\w*)$/.test(w));
}

/** The PromQL of every `expr:` of a rules file (one line, or a `|` block up to the next key). */
function exprsOf(yaml: string): string[] {
  return yaml.replace(/^\s*#.*$/gm, '').split(/\bexpr:/).slice(1).map((rest) => rest.split(/\n\s+(?:for|labels|annotations|- record|- alert|- name):/)[0] as string).map((e) => e.replace(/^\s*\|/, ''));
}

let t: TestNode & { baseUrl: string };
let exported: Set<string>;

beforeAll(async () => {
  t = await startTestNode();
  const text = (await t.node.app.inject('/metrics')).body;
  exported = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)/gm)].flatMap((m) => {
    const [name, type] = [m[1] as string, m[2] as string];
    // Histograms and summaries are queried through their series.
    return type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : type === 'summary' ? [name, `${name}_sum`, `${name}_count`] : [name];
  }));
});
afterAll(async () => t.close());

describe('ops/grafana/ticketrush.json', () => {
  it('parses, and every panel has a query', () => {
    expect(dashboard.uid).toBe('ticketrush');
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0);
  });

  it('queries only metrics the server exports, or recording rules built from them', () => {
    const recorded = new Set([...recording.matchAll(/- record: (\S+)/g)].map((m) => m[1] as string));
    const recordingInputs = exprsOf(recording).flatMap(metricsOf);
    const alertInputs = exprsOf(alerts).flatMap(metricsOf);
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((target) => metricsOf(target.expr)));
    // `up` is Prometheus's own series for every target it scrapes.
    const unknown = [...new Set([...used, ...recordingInputs, ...alertInputs])].filter((name) => name !== 'up' && !recorded.has(name) && !exported.has(name));
    expect(unknown).toEqual([]);
    expect(used.filter((name) => recorded.has(name)).length).toBeGreaterThan(0);
  });

  it('uses every family of seed 002 §14.1 the server exports for it', () => {
    for (const name of ['ticketrush_hold_requests_total', 'ticketrush_hold_latency_seconds_bucket', 'ticketrush_hold_expiry_delay_seconds_bucket', 'ticketrush_holds_overdue_oldest_seconds',
      'ticketrush_payment_callbacks_total', 'ticketrush_orders_paid_not_ticketed', 'ticketrush_orders_pending_pay', 'ticketrush_inventory_inconsistencies',
      'ticketrush_jobs_waiting', 'ticketrush_outbox_relay_lag_seconds', 'ticketrush_waiting_room_length', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(exported.has(name), `${name} exported`).toBe(true);
    }
  });
});

/**
 * The Grafana dashboard and the Prometheus alert rules under deploy/ refer only to metrics the code
 * registers: the business metric catalogue (each entry registered by some service, checked in the
 * sources here and on a live /metrics by test/e2e/business-metrics) and the HTTP metrics of every
 * process. A renamed metric fails here until the dashboard and the rules follow.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BUSINESS_METRICS, HTTP_METRIC_NAMES, Metrics, sampleNamesOf } from '@svc/telemetry';

const ROOT = join(__dirname, '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboard = JSON.parse(read('deploy/grafana/svc-overview.json')) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string }> };
};
const rules = (parse(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap(
  (group) => group.rules,
);
const panelExpressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** Every sample name Prometheus can scrape from our processes for these metrics. */
function registeredSampleNames(): Set<string> {
  const metrics = new Metrics({ service: 'svc', region: 'us' });
  const http = HTTP_METRIC_NAMES.flatMap((name) => {
    const metric = metrics.registry.getSingleMetric(name);
    if (!metric) throw new Error(`${name} is not registered by Metrics`);
    return sampleNamesOf({ name, type: name.endsWith('_seconds') ? 'histogram' : 'counter' });
  });
  return new Set([...http, ...Object.values(BUSINESS_METRICS).flatMap(sampleNamesOf)]);
}

/** Metric names a PromQL expression selects (strings, label matchers, groupings and ranges removed). */
export function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  const keywords = new Set([
    'by',
    'without',
    'on',
    'ignoring',
    'group_left',
    'group_right',
    'offset',
    'bool',
    'and',
    'or',
    'unless',
    'inf',
    'nan',
  ]);
  return [...stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?/g)]
    .filter((match) => !match[2] && !keywords.has(match[1]!.toLowerCase()))
    .map((match) => match[1]!);
}

/** Source files under libs/, tests excluded. */
function sources(dir = join(ROOT, 'libs')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'test' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(name) ? [path] : [];
  });
}

describe('metric names in the dashboard and the alert rules', () => {
  const known = registeredSampleNames();

  it('finds the metric names of a PromQL expression', () => {
    expect(
      metricNamesIn('histogram_quantile(0.95, sum by (le) (rate(webhook_delivery_duration_seconds_bucket{region=~"$region"}[5m])))'),
    ).toEqual(['webhook_delivery_duration_seconds_bucket']);
    expect(metricNamesIn('max by (region) (a_total) > max by (region) (a_total offset 10m)')).toEqual(['a_total', 'a_total']);
  });

  it.each(panelExpressions.map((expression) => [expression]))('dashboard: %s', (expression) => {
    const names = metricNamesIn(expression);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(known).toContain(name);
  });

  it.each(rules.map((rule) => [rule.alert, rule.expr]))('alert %s: %s', (_alert, expression) => {
    const names = metricNamesIn(expression);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(known).toContain(name);
  });

  it('the dashboard shows every business metric', () => {
    const shown = new Set(panelExpressions.flatMap(metricNamesIn));
    for (const definition of Object.values(BUSINESS_METRICS)) expect(sampleNamesOf(definition).some((name) => shown.has(name))).toBe(true);
  });

  it('every business metric of the catalogue is registered by some service', () => {
    const code = sources()
      .filter((path) => !path.includes(join('platform', 'telemetry')))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    for (const key of Object.keys(BUSINESS_METRICS))
      expect(code).toMatch(new RegExp(`\\.(?:counterOf|histogramOf|gaugeOf)\\(BUSINESS_METRICS\\.${key}\\b`));
  });
});

describe('alert rules', () => {
  const rule = (name: string): Rule => {
    const found = rules.find((candidate) => candidate.alert === name);
    if (!found) throw new Error(`no alert ${name}`);
    return found;
  };

  it('alert when the newest (witnessed) checkpoint is older than 30 minutes', () => {
    expect(rule('AuditCheckpointStale').expr).toBe('max by (region) (audit_last_checkpoint_age_seconds) > 1800');
    expect(rule('AuditWitnessedCheckpointStale').expr).toBe('max by (region) (audit_last_witnessed_checkpoint_age_seconds) > 1800');
  });

  it('alert when an outbox row waits for more than 60 seconds', () => {
    expect(rule('OutboxBacklogOld').expr).toBe('max by (region, schema) (outbox_oldest_unpublished_age_seconds) > 60');
  });

  it('alert when a webhook endpoint is disabled', () => {
    expect(metricNamesIn(rule('WebhookEndpointDisabled').expr)).toEqual(['webhook_endpoints_disabled', 'webhook_endpoints_disabled']);
  });

  it('give every rule a severity, a summary and a description', () => {
    for (const candidate of rules) {
      expect(['critical', 'warning']).toContain(candidate.labels?.severity);
      expect(candidate.annotations?.summary).toEqual(expect.any(String));
      expect(candidate.annotations?.description).toEqual(expect.any(String));
    }
  });
});

describe('Grafana dashboard', () => {
  it('has a stable uid, a Prometheus data source variable and a region filter used by every query', () => {
    expect(dashboard.uid).toBe('svc-overview');
    expect(dashboard.templating.list.map((variable) => variable.name)).toEqual(['datasource', 'region']);
    for (const expression of panelExpressions) expect(expression).toContain('region=~"$region"');
  });
});

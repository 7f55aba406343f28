/**
 * The chart of helm/svc rendered for the deploy tests with the renderer of deploy/helm-template.ts:
 * values merged as Helm merges them (values.yaml, then values-<region>.yaml, then overrides), every
 * template rendered, every document parsed as YAML.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { Region } from '@svc/config';
import { ChartRenderer, helmMerge, type Json } from './helm-template';

const CHART_DIR = join(__dirname, '..', 'helm', 'svc');
const chartMeta = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { name: string; version: string; appVersion: string };
const renderer = new ChartRenderer(CHART_DIR, chartMeta.name);

const valuesFile = (name: string): Json => parse(readFileSync(join(CHART_DIR, name), 'utf8')) as Json;

/** values.yaml, values-<region>.yaml and `extra`, merged as `helm install -f values-<region>.yaml` does. */
export const regionValues = (region: Region, extra: Json = {}): Json =>
  helmMerge(helmMerge(valuesFile('values.yaml'), valuesFile(`values-${region}.yaml`)), extra);

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of many kinds
  data?: Record<string, string>;
}

/** Every manifest of the release, in template order; throws on a template or YAML error. */
export function renderChart(values: Json, release = 'svc-us', namespace = 'svc-us'): Manifest[] {
  const files = renderer.renderAll({
    Values: values as Record<string, unknown>,
    Release: { Name: release, Namespace: namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chartMeta.name, Version: chartMeta.version, AppVersion: chartMeta.appVersion },
  });
  const manifests: Manifest[] = [];
  for (const [file, text] of files) {
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}\n${text}`);
      const manifest = document.toJS() as Manifest | null;
      if (manifest !== null) manifests.push(manifest);
    }
  }
  return manifests;
}

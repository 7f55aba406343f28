/**
 * Static checks of the Helm chart in helm/svc beyond the basics of manifests.spec.ts: network
 * policies, the migration Job, what the public Ingress routes, per-service environment, and the
 * values schema. Templates are Go templates and are checked as text; values files are parsed as
 * YAML and validated against values.schema.json as Helm would before rendering.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REGIONS, type Region } from '@svc/config';

const ROOT = join(__dirname, '..');
const CHART = 'helm/svc';
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const template = (name: string): string => read(`${CHART}/templates/${name}`);

interface ServiceValues {
  replicas?: number;
  router?: boolean;
  publicEgress?: boolean;
  env?: Record<string, string>;
  envFrom?: unknown[];
}
interface Values {
  services?: Record<string, ServiceValues>;
  networkPolicy?: {
    enabled?: boolean;
    routerIngressFrom?: unknown[];
    metricsFrom?: unknown[];
    postgres?: { port?: number; to?: unknown[] };
    nats?: { port?: number; to?: unknown[] };
    privateRanges?: { ipv4?: string[]; ipv6?: string[] };
  };
  postgres?: { cloudNativePG?: { enabled?: boolean } };
  [key: string]: unknown;
}

const defaults = parse(read(`${CHART}/values.yaml`)) as Values;
const regional = Object.fromEntries(REGIONS.map((region) => [region, parse(read(`${CHART}/values-${region}.yaml`)) as Values])) as Record<Region, Values>;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Feature libraries whose server code calls customer URLs through the guarded egress client. */
const EGRESS_CLIENT_USERS = readdirSync(join(ROOT, 'libs/feature'))
  .filter((name) => existsSync(join(ROOT, 'libs/feature', name, 'src')))
  .filter((name) =>
    filesUnder(`libs/feature/${name}/src`).some((path) => path.endsWith('.ts') && !path.includes('.spec.') && read(path).includes("from '@svc/egress'")),
  )
  .sort();

describe('helm/svc network policies', () => {
  const policy = template('networkpolicy.yaml');

  it('is on by default and denies every flow of every pod of the release not allowed below', () => {
    expect(defaults.networkPolicy?.enabled).toBe(true);
    expect(policy).toMatch(/\{\{- if \.Values\.networkPolicy\.enabled \}\}/);
    expect(policy).toMatch(
      /name: \{\{ include "svc\.fullname" \. \}\}-default-deny[\s\S]*?podSelector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \. \| nindent 6 \}\}\s+policyTypes: \[Ingress, Egress\]\n---/,
    );
    // Same-release selector: the labels every Deployment's and the migration Job's pods carry.
    const helpers = template('_helpers.tpl');
    expect(helpers).toMatch(/define "svc\.releaseSelector"[\s\S]*?app\.kubernetes\.io\/instance: \{\{ \.Release\.Name \}\}\s+app\.kubernetes\.io\/part-of: svc/);
    expect(helpers).toMatch(/define "svc\.labels"[\s\S]*?app\.kubernetes\.io\/part-of: svc/);
    expect(helpers).toMatch(/define "svc\.selectorLabels"[\s\S]*?app\.kubernetes\.io\/instance: \{\{ \.root\.Release\.Name \}\}/);
  });

  it('lets every app reach only DNS, Postgres, NATS and the other apps of the release', () => {
    const infrastructure = /-egress-infrastructure[\s\S]*?(?=\{\{- range \$name, \$svc)/.exec(policy)?.[0] ?? '';
    expect(infrastructure).toContain('policyTypes: [Egress]');
    expect(infrastructure).toMatch(/# DNS\s+- to:\s+\{\{- toYaml \$np\.dns\.to \| nindent 8 \}\}\s+ports:\s+- \{ protocol: UDP, port: 53 \}\s+- \{ protocol: TCP, port: 53 \}/);
    expect(infrastructure).toMatch(/# Postgres\s+- to:\s+\{\{- toYaml \$postgresTo \| nindent 8 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \$np\.postgres\.port \| int \}\} \}/);
    expect(infrastructure).toMatch(/# NATS\s+- to:\s+\{\{- toYaml \$np\.nats\.to \| nindent 8 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \$np\.nats\.port \| int \}\} \}/);
    expect(infrastructure).toMatch(/- to:\s+- podSelector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \. \| nindent 14 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \.Values\.containerPort \| int \}\} \}/);
    // No rule without a peer list: an empty `to` would allow every destination.
    expect(policy).toContain('fail "values: networkPolicy.postgres.to is required');
    expect(policy).toContain('fail "values: networkPolicy.nats.to is required');
    expect(defaults.networkPolicy?.postgres?.port).toBe(5432);
    expect(defaults.networkPolicy?.nats?.port).toBe(4222);
    expect(defaults.networkPolicy?.nats?.to?.length).toBeGreaterThan(0);
  });

  it.each(REGIONS)('values-%s says where its Postgres is', (region) => {
    const values = regional[region];
    const peers = values.networkPolicy?.postgres?.to ?? [];
    expect(peers.length > 0 || values.postgres?.cloudNativePG?.enabled === true).toBe(true);
  });

  it('adds the pods of the CloudNativePG Cluster to the Postgres peers when the chart runs one', () => {
    expect(policy).toMatch(
      /\{\{- if \.Values\.postgres\.cloudNativePG\.enabled \}\}\s+\{\{- \$postgresTo = append \$postgresTo \(dict "podSelector" \(dict "matchLabels" \(dict "cnpg\.io\/cluster" \(include "svc\.postgresClusterName" \$\)\)\)\) \}\}/,
    );
  });

  it('opens the router to the public and every other app only to the apps of the release', () => {
    const perApp = /\{\{- range \$name, \$svc := \.Values\.services \}\}[\s\S]*$/.exec(policy)?.[0] ?? '';
    expect(perApp).toMatch(/podSelector:\s+matchLabels:\s+\{\{- include "svc\.selectorLabels" \$app \| nindent 6 \}\}/);
    const [routerBranch, servicesBranch] = /\{\{- if \$svc\.router \}\}([\s\S]*?)\{\{- else \}\}([\s\S]*?)\{\{- end \}\}/.exec(perApp)!.slice(1);
    // Router: its port, from anyone unless networkPolicy.routerIngressFrom narrows it.
    expect(routerBranch).toMatch(/- ports:\s+- \{ protocol: TCP, port: \{\{ \$\.Values\.containerPort \| int \}\} \}\s+\{\{- with \$np\.routerIngressFrom \}\}\s+from:/);
    expect(servicesBranch).toMatch(/- from:\s+- podSelector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \$ \| nindent 14 \}\}\s+ports:/);
    expect(servicesBranch).not.toMatch(/namespaceSelector|ipBlock/);
    // Scrapers only when named.
    expect(perApp).toMatch(/\{\{- with \$np\.metricsFrom \}\}\s+# Prometheus scraping \/metrics\.\s+- from:/);
    expect(defaults.networkPolicy?.metricsFrom).toEqual([]);
  });

  it('gives public internet egress, without cluster or private ranges, only to the apps that call customer URLs', () => {
    const publicApps = Object.entries(defaults.services ?? {})
      .filter(([, service]) => service.publicEgress === true)
      .map(([name]) => name)
      .sort();
    expect(publicApps).toEqual(['consent-records', 'oap-authorizer', 'oversight-witness', 'webhook-dispatcher']);
    for (const app of EGRESS_CLIENT_USERS) expect(publicApps).toContain(app);
    expect(EGRESS_CLIENT_USERS).toEqual(expect.arrayContaining(['consent-records', 'webhook-dispatcher']));
    expect(defaults.services?.['residency-router']?.publicEgress).toBeUndefined();
    for (const values of Object.values(regional)) expect(values.services).toBeUndefined();

    const egress = /\{\{- if \$svc\.publicEgress \}\}\s+egress:([\s\S]*?)\{\{- end \}\}\s*\{\{- end \}\}\s*\{\{- end \}\}\s*$/.exec(policy)?.[1] ?? '';
    expect(egress).toMatch(/- ipBlock:\s+cidr: 0\.0\.0\.0\/0\s+except:\s+\{\{- toYaml \$np\.privateRanges\.ipv4 \| nindent 14 \}\}/);
    expect(egress).toMatch(/- ipBlock:\s+cidr: "::\/0"\s+except:\s+\{\{- toYaml \$np\.privateRanges\.ipv6 \| nindent 14 \}\}/);
    expect(policy).toMatch(/policyTypes: \{\{ if \$svc\.publicEgress \}\}\[Ingress, Egress\]\{\{ else \}\}\[Ingress\]\{\{ end \}\}/);
    const ranges = defaults.networkPolicy?.privateRanges;
    expect(ranges?.ipv4).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8']));
    expect(ranges?.ipv6).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128']));
  });
});

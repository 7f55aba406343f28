/**
 * Static checks of the Helm chart in helm/svc beyond the basics of manifests.spec.ts: network
 * policies, the migration Job, what the public Ingress routes, per-service environment, and the
 * values schema. Templates are Go templates and are checked as text; values files are parsed as
 * YAML and validated against values.schema.json as Helm would before rendering.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { REGIONS, type Region } from '@svc/config';
import { helmMerge, isMap, type Json } from './helm-template';

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
const regional = Object.fromEntries(REGIONS.map((region) => [region, parse(read(`${CHART}/values-${region}.yaml`)) as Values])) as Record<
  Region,
  Values
>;

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
    filesUnder(`libs/feature/${name}/src`).some(
      (path) => path.endsWith('.ts') && !path.includes('.spec.') && read(path).includes("from '@svc/egress'"),
    ),
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
    expect(helpers).toMatch(
      /define "svc\.releaseSelector"[\s\S]*?app\.kubernetes\.io\/instance: \{\{ \.Release\.Name \}\}\s+app\.kubernetes\.io\/part-of: svc/,
    );
    expect(helpers).toMatch(/define "svc\.labels"[\s\S]*?app\.kubernetes\.io\/part-of: svc/);
    expect(helpers).toMatch(/define "svc\.selectorLabels"[\s\S]*?app\.kubernetes\.io\/instance: \{\{ \.root\.Release\.Name \}\}/);
  });

  it('lets every app reach only DNS, Postgres, NATS and the other apps of the release', () => {
    const infrastructure = /-egress-infrastructure[\s\S]*?(?=\{\{- range \$name, \$svc)/.exec(policy)?.[0] ?? '';
    expect(infrastructure).toContain('policyTypes: [Egress]');
    expect(infrastructure).toMatch(
      /# DNS\s+- to:\s+\{\{- toYaml \$np\.dns\.to \| nindent 8 \}\}\s+ports:\s+- \{ protocol: UDP, port: 53 \}\s+- \{ protocol: TCP, port: 53 \}/,
    );
    expect(infrastructure).toMatch(
      /# Postgres\s+- to:\s+\{\{- toYaml \$postgresTo \| nindent 8 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \$np\.postgres\.port \| int \}\} \}/,
    );
    expect(infrastructure).toMatch(
      /# NATS\s+- to:\s+\{\{- toYaml \$np\.nats\.to \| nindent 8 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \$np\.nats\.port \| int \}\} \}/,
    );
    expect(infrastructure).toMatch(
      /- to:\s+- podSelector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \. \| nindent 14 \}\}\s+ports:\s+- \{ protocol: TCP, port: \{\{ \.Values\.containerPort \| int \}\} \}/,
    );
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
    const [routerBranch, servicesBranch] = /\{\{- if \$svc\.router \}\}([\s\S]*?)\{\{- else \}\}([\s\S]*?)\{\{- end \}\}/
      .exec(perApp)!
      .slice(1);
    // Router: its port, from anyone unless networkPolicy.routerIngressFrom narrows it.
    expect(routerBranch).toMatch(
      /- ports:\s+- \{ protocol: TCP, port: \{\{ \$\.Values\.containerPort \| int \}\} \}\s+\{\{- with \$np\.routerIngressFrom \}\}\s+from:/,
    );
    expect(servicesBranch).toMatch(
      /- from:\s+- podSelector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \$ \| nindent 14 \}\}\s+ports:/,
    );
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

    const egress =
      /\{\{- if \$svc\.publicEgress \}\}\s+egress:([\s\S]*?)\{\{- end \}\}\s*\{\{- end \}\}\s*\{\{- end \}\}\s*$/.exec(policy)?.[1] ?? '';
    expect(egress).toMatch(/- ipBlock:\s+cidr: 0\.0\.0\.0\/0\s+except:\s+\{\{- toYaml \$np\.privateRanges\.ipv4 \| nindent 14 \}\}/);
    expect(egress).toMatch(/- ipBlock:\s+cidr: "::\/0"\s+except:\s+\{\{- toYaml \$np\.privateRanges\.ipv6 \| nindent 14 \}\}/);
    expect(policy).toMatch(/policyTypes: \{\{ if \$svc\.publicEgress \}\}\[Ingress, Egress\]\{\{ else \}\}\[Ingress\]\{\{ end \}\}/);
    const ranges = defaults.networkPolicy?.privateRanges;
    expect(ranges?.ipv4).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8']),
    );
    expect(ranges?.ipv6).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128']));
  });
});

describe('helm/svc migration Job', () => {
  const job = template('migrations-job.yaml');
  const values = defaults as Values & { migrations?: { enabled?: boolean; backoffLimit?: number; activeDeadlineSeconds?: number } };

  it('runs the image’s migrate entry point before install and before every upgrade', () => {
    expect(values.migrations).toMatchObject({ enabled: true });
    expect(values.migrations?.backoffLimit).toBeGreaterThan(0);
    expect(values.migrations?.activeDeadlineSeconds).toBeGreaterThan(0);
    expect(job).toMatch(/kind: Job/);
    expect(job).toMatch(
      /helm\.sh\/hook: \{\{ if \.Values\.postgres\.cloudNativePG\.enabled \}\}post-install,pre-upgrade\{\{ else \}\}pre-install,pre-upgrade\{\{ end \}\}/,
    );
    expect(job).toMatch(/helm\.sh\/hook-delete-policy: before-hook-creation,hook-succeeded/);
    expect(job).toMatch(/helm\.sh\/hook-weight: "-?\d+"/);
    expect(job).toMatch(/backoffLimit: \{\{ \.Values\.migrations\.backoffLimit \| int \}\}/);
    expect(job).toMatch(/restartPolicy: Never/);
    // The entry point exists in the sources the image compiles (tsconfig.build.json includes deploy/).
    const entry = /command: \["node", "scripts\/run-dist\.js", "dist\/(deploy\/migrate\/main)\.js"\]/.exec(job)?.[1];
    expect(entry).toBe('deploy/migrate/main');
    expect(existsSync(join(ROOT, `${entry}.ts`))).toBe(true);
    expect((JSON.parse(read('tsconfig.build.json')) as { include: string[] }).include).toContain('deploy/**/*.ts');
    expect(read('Dockerfile')).toMatch(/^COPY deploy \.\/deploy$/m);
  });

  it('takes DATABASE_URL from the Secret (the ConfigMap does not exist yet before install) and runs locked down', () => {
    expect(job).toMatch(
      /- name: DATABASE_URL\s+valueFrom:\s+secretKeyRef:\s+name: \{\{ required "[^"]+" \.Values\.secrets\.databaseUrl\.existingSecret \}\}\s+key: \{\{ \.Values\.secrets\.databaseUrl\.key \}\}/,
    );
    expect(job).not.toContain('configMapRef');
    expect(job).toContain('toYaml .Values.securityContext');
    expect(job).toContain('toYaml .Values.podSecurityContext');
    expect(job).toContain('automountServiceAccountToken: false');
    // Its pods carry the release labels, so the egress policy (Postgres, DNS) applies to them on upgrade.
    expect(job).toMatch(/template:\s+metadata:\s+labels:\s+\{\{- include "svc\.labels" \$ctx \| nindent 8 \}\}/);
  });
});

describe('helm/svc public Ingress', () => {
  const ingress = template('ingress.yaml');
  const paths = (defaults as Values & { ingress?: { paths?: string[] } }).ingress?.paths ?? [];
  const routed = (path: string): boolean => paths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

  /** First path segments of the router's route table (`^\/api`, `^\/\.well-known`, `^\/(decisions|…)`). */
  const routeTable = read('libs/feature/residency-router/src/route-table.ts');
  const publicPrefixes = [
    ...new Set(
      [...routeTable.matchAll(/\^\\\/(?:\(([a-z0-9_|]+)\)|(\\\.)?([a-z0-9_-]+))/g)].flatMap((match) =>
        match[1] ? match[1].split('|').map((segment) => `/${segment}`) : [`/${match[2] ? '.' : ''}${match[3]}`],
      ),
    ),
  ].sort();

  it('routes every path family the router serves', () => {
    expect(publicPrefixes).toEqual(expect.arrayContaining(['/api', '/.well-known', '/decisions', '/capture']));
    for (const prefix of publicPrefixes) expect({ prefix, routed: routed(prefix) }).toEqual({ prefix, routed: true });
    expect(ingress).toMatch(/\{\{- range \$\.Values\.ingress\.paths \}\}\s+- path: \{\{ \. \| quote \}\}\s+pathType: Prefix/);
  });

  it('never routes /metrics, /readyz or /healthz, nor everything under /', () => {
    for (const path of ['/metrics', '/readyz', '/healthz']) expect({ path, routed: routed(path) }).toEqual({ path, routed: false });
    expect(paths).not.toContain('/');
    expect(ingress).not.toMatch(/path: \/\s*$/m);
    for (const values of Object.values(regional)) expect((values as { ingress?: { paths?: unknown } }).ingress?.paths).toBeUndefined();
  });
});

describe('helm/svc ServiceMonitor and PodDisruptionBudgets', () => {
  const values = defaults as Values & { serviceMonitor?: { enabled?: boolean }; podDisruptionBudget?: { enabled?: boolean } };

  it('scrapes /metrics of every app through the Services when enabled (off by default)', () => {
    expect(values.serviceMonitor?.enabled).toBe(false);
    const monitor = template('servicemonitor.yaml');
    expect(monitor).toMatch(/\{\{- if \.Values\.serviceMonitor\.enabled \}\}/);
    expect(monitor).toMatch(/apiVersion: monitoring\.coreos\.com\/v1\s+kind: ServiceMonitor/);
    expect(monitor).toMatch(/selector:\s+matchLabels:\s+\{\{- include "svc\.releaseSelector" \. \| nindent 6 \}\}/);
    expect(monitor).toMatch(/endpoints:\s+- port: http\s+path: \/metrics/);
    // The Services carry the labels the selector names.
    expect(template('service.yaml')).toMatch(/labels:\s+\{\{- include "svc\.labels" \$ctx \| nindent 4 \}\}/);
  });

  it('keeps a PodDisruptionBudget per app', () => {
    expect(values.podDisruptionBudget?.enabled).toBe(true);
    expect(template('pdb.yaml')).toMatch(/range \$name, \$svc := \.Values\.services[\s\S]*kind: PodDisruptionBudget/);
  });
});

// ---------------------------------------------------------------- per-service environment

/** Variables an app reads: PlatformConfig's, the router's, and its feature library's config classes. */
function variablesReadBy(app: string): Set<string> {
  const declared = (path: string): string[] => [...read(path).matchAll(/^\s*([A-Z][A-Z0-9_]*)[!?]?\s*[:=]/gm)].map((match) => match[1]!);
  const sources = [
    'libs/platform/config/src/platform-config.ts',
    ...(app === 'residency-router' ? ['libs/feature/residency-router/src/residency-router.config.ts'] : []),
  ];
  const featureSrc = `libs/feature/${app}/src`;
  if (existsSync(join(ROOT, featureSrc))) sources.push(...filesUnder(featureSrc).filter((path) => /\.config\.ts$/.test(path)));
  return new Set(sources.flatMap(declared));
}

/** Variables the chart sets itself (ConfigMap keys and Deployment `env` entries). */
const CHART_VARIABLES = [
  ...[...template('configmap.yaml').matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((match) => match[1]!),
  ...[...template('deployment.yaml').matchAll(/- name: ([A-Z][A-Z0-9_]*)$/gm)].map((match) => match[1]!),
].sort();

describe('helm/svc per-service environment', () => {
  const deployment = template('deployment.yaml');

  it('adds each app’s own variables, single Secret keys and whole Secrets or ConfigMaps', () => {
    expect(deployment).toMatch(
      /\{\{- range \$variable, \$value := \$svc\.env \}\}\s+- name: \{\{ \$variable \}\}\s+value: \{\{ \$value \| toString \| quote \}\}/,
    );
    expect(deployment).toMatch(
      /\{\{- range \$variable, \$ref := \$svc\.secretEnv \}\}\s+- name: \{\{ \$variable \}\}\s+valueFrom:\s+secretKeyRef:\s+name: \{\{ \$ref\.secretName \}\}\s+key: \{\{ \$ref\.key \}\}/,
    );
    // After the chart's ConfigMap, so an app's own source cannot be shadowed by the shared one.
    expect(deployment).toMatch(
      /envFrom:\s+- configMapRef:\s+name: \{\{ include "svc\.fullname" \$ \}\}-env\s+\{\{- with \$svc\.envFrom \}\}\s+\{\{- toYaml \. \| nindent 12 \}\}/,
    );
  });

  it('only sets variables the app reads, never one the chart sets', () => {
    expect(CHART_VARIABLES).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'KEY_ENCRYPTION_KEY', 'REGION', 'SERVICE_NAME', 'SERVICE_URLS']),
    );
    const schema = JSON.parse(read(`${CHART}/values.schema.json`)) as { definitions: { variableName: { not: { enum: string[] } } } };
    expect(schema.definitions.variableName.not.enum.sort()).toEqual([...new Set(CHART_VARIABLES)].sort());
    for (const values of [defaults, ...Object.values(regional)]) {
      for (const [app, service] of Object.entries(values.services ?? {})) {
        const known = variablesReadBy(app);
        const names = [...Object.keys(service.env ?? {}), ...Object.keys((service as { secretEnv?: object }).secretEnv ?? {})];
        for (const name of names) expect({ app, name, read: known.has(name) }).toEqual({ app, name, read: true });
      }
    }
    expect([...variablesReadBy('audit-chain')]).toEqual(expect.arrayContaining(['AUDIT_WITNESS_URL', 'AUDIT_WITNESS_KEY', 'DATABASE_URL']));
  });
});

// ---------------------------------------------------------------- values schema

const schemaText = read(`${CHART}/values.schema.json`);
const schema = JSON.parse(schemaText) as Record<string, unknown>;
// Helm validates with a draft-07 validator; ajv's default class is draft-07. Strict mode also rejects
// unknown keywords in the schema itself (a misspelt `additionalProperties` would silently allow anything).
const validateValues = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false }).compile(schema);
const errorsOf = (values: Json): string[] =>
  validateValues(values)
    ? []
    : (validateValues.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
const defaultsJson = parse(read(`${CHART}/values.yaml`)) as Json;
const regionValues = (region: Region): Json => helmMerge(defaultsJson, parse(read(`${CHART}/values-${region}.yaml`)) as Json);

/** Every leaf path of a values tree (maps descended, lists and scalars are leaves). */
function leafPaths(value: Json, prefix = ''): string[] {
  if (!isMap(value) || Object.keys(value).length === 0) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, prefix ? `${prefix}.${key}` : key));
}

describe('helm/svc values.schema.json', () => {
  it('is a draft-07 schema closed at the top', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
  });

  it('accepts the chart defaults', () => {
    expect(errorsOf(defaultsJson)).toEqual([]);
  });

  it.each(REGIONS)('accepts values-%s merged over the defaults', (region) => {
    expect(errorsOf(regionValues(region))).toEqual([]);
  });

  it('describes every value of values.yaml (no value passes unchecked through an open object)', () => {
    const described = (path: string): boolean => {
      let node = schema as { properties?: Record<string, unknown>; additionalProperties?: unknown; $ref?: string; type?: unknown };
      for (const key of path.split('.')) {
        if (node.$ref) node = (schema.definitions as Record<string, typeof node>)[node.$ref.replace('#/definitions/', '')]!;
        const next = node.properties?.[key] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
        if (!next) return node.type === 'object' && node.additionalProperties === undefined; // a Kubernetes object passed through
        node = next as typeof node;
      }
      return true;
    };
    for (const path of leafPaths(defaultsJson)) expect({ path, described: described(path) }).toEqual({ path, described: true });
  });

  it.each(REGIONS)('rejects an unknown or misspelt key in values-%s', (region) => {
    const values = regionValues(region) as { [key: string]: Json };
    for (const typo of [
      { regoin: region },
      { config: { natsURL: 'nats://nats:4222' } },
      { secrets: { databaseUrl: { existingSecret: 'x', key: 'DATABASE_URL', value: 'postgres://literal' } } },
      { networkPolicy: { enable: true } },
      { services: { 'audit-chain': { environment: { AUDIT_WITNESS_URL: 'https://w.example' } } } },
      { ingress: { tls: { secret: 'x' } } },
    ] as Json[]) {
      expect({ typo, errors: errorsOf(helmMerge(values, typo)).length > 0 }).toEqual({ typo, errors: true });
    }
  });

  it('rejects values the templates cannot use', () => {
    const values = regionValues('eu');
    const invalid: Json[] = [
      { region: 'moon' },
      { services: { 'audit-chain': { env: { DATABASE_URL: 'postgres://elsewhere' } } } }, // the chart sets it
      { services: { 'audit-chain': { env: { 'lower-case': 'x' } } } },
      { services: { 'audit-chain': { secretEnv: { AUDIT_WITNESS_KEY: { secretName: 'w' } } } } },
      { services: { 'audit-chain': { envFrom: [{ secretRef: {} }] } } },
      { ingress: { paths: ['/metrics'] } },
      { networkPolicy: { postgres: { to: [{ podSelectr: {} }] } } },
      { serviceMonitor: { interval: 'often' } },
    ];
    for (const change of invalid)
      expect({ change, rejected: errorsOf(helmMerge(values, change)).length > 0 }).toEqual({ change, rejected: true });
  });

  it('accepts a witness URL, its key from a Secret, and a whole Secret for one app', () => {
    const values = helmMerge(regionValues('us'), {
      services: {
        'audit-chain': {
          env: { AUDIT_WITNESS_URL: 'https://witness.example.net', AUDIT_CHECKPOINT_INTERVAL_SECONDS: 900 },
          secretEnv: { AUDIT_WITNESS_KEY: { secretName: 'svc-us-witness', key: 'AUDIT_WITNESS_KEY' } },
          envFrom: [{ secretRef: { name: 'svc-us-audit-extra' } }],
        },
      },
    });
    expect(errorsOf(values)).toEqual([]);
  });
});

// ---------------------------------------------------------------- Postgres and NATS engines

describe('helm/svc CloudNativePG Cluster (postgres.cloudNativePG)', () => {
  const cluster = template('postgres-cluster.yaml');
  const cnpg = (defaults as { postgres?: { cloudNativePG?: Record<string, unknown> } }).postgres?.cloudNativePG ?? {};

  it('is off by default, so an existing Postgres keeps working through secrets.databaseUrl', () => {
    expect(cnpg.enabled).toBe(false);
    expect(cluster).toMatch(/^\{\{- if \.Values\.postgres\.cloudNativePG\.enabled \}\}/m);
  });

  it('runs a replicated Cluster with the region database when enabled', () => {
    expect(cnpg.instances).toBe(3);
    expect(String(cnpg.imageName)).toMatch(/^ghcr\.io\/cloudnative-pg\/postgresql:15(\.|$)/);
    expect(cluster).toMatch(/apiVersion: postgresql\.cnpg\.io\/v1\s+kind: Cluster/);
    expect(cluster).toMatch(/name: \{\{ include "svc\.postgresClusterName" \. \}\}/);
    expect(cluster).toMatch(/instances: \{\{ \$pg\.instances \| int \}\}/);
    expect(cluster).toMatch(
      /bootstrap:\s+initdb:\s+database: \{\{ \$pg\.database \| default \(printf "svc_%s" \(include "svc\.region" \.\)\) \}\}/,
    );
    expect(cluster).toMatch(/enablePodAntiAffinity: true/);
  });
});

describe('helm/nats: values for the official NATS chart', () => {
  const nats = parse(read('helm/nats/values.yaml')) as {
    config?: {
      cluster?: { enabled?: boolean; replicas?: number };
      jetstream?: { enabled?: boolean; fileStore?: { pvc?: { enabled?: boolean; size?: string } } };
      merge?: Record<string, string>;
    };
    container?: { env?: Record<string, { valueFrom?: { secretKeyRef?: { name?: string; key?: string } } }> };
    podDisruptionBudget?: { enabled?: boolean };
  };
  const text = read('helm/nats/values.yaml');

  it('runs a 3-node cluster with JetStream on persistent volumes', () => {
    expect(nats.config?.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(nats.config?.jetstream?.enabled).toBe(true);
    expect(nats.config?.jetstream?.fileStore?.pvc).toMatchObject({ enabled: true });
    expect(nats.podDisruptionBudget?.enabled).toBe(true);
  });

  it('loads the region accounts file and gives the server every password it reads from a Secret', () => {
    expect(Object.values(nats.config?.merge ?? {})).toContain('accounts.conf');
    expect(text).toContain("--set-file 'configMap.merge.data.accounts\\.conf=deploy/nats/accounts.conf'");
    const variables = [...read('deploy/nats/accounts.conf').matchAll(/password: \$([A-Z_]+)/g)].map((match) => match[1]!).sort();
    expect(variables).toEqual(REGIONS.map((region) => `NATS_${region.toUpperCase()}_PASSWORD`).sort());
    expect(Object.keys(nats.container?.env ?? {}).sort()).toEqual(variables);
    for (const variable of variables) expect(nats.container?.env?.[variable]?.valueFrom?.secretKeyRef?.key).toBe(variable);
  });

  it('is where the svc releases look for NATS by default', () => {
    expect(text).toMatch(/helm upgrade --install nats nats\/nats -n nats /);
    expect((defaults as { config?: { natsUrl?: string } }).config?.natsUrl).toBe('nats://nats.nats.svc.cluster.local:4222');
    expect(defaults.networkPolicy?.nats?.to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nats' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nats' } },
      },
    ]);
  });
});

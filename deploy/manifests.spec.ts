/**
 * Static checks of the deployment manifests: docker-compose.yml, the Dockerfile and the Helm chart
 * in helm/svc. The app list comes from the apps/ folder and the required variables from the config
 * classes' source, so adding an app or a required variable fails here until the manifests follow.
 * Helm templates are Go templates: they are checked as text; values files are parsed as YAML.
 * Network policies, the migration Job, the Ingress paths and the values schema: deploy/helm.spec.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REGIONS, SERVICE_NAMES, type Region } from '@svc/config';

const ROOT = join(__dirname, '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

// ---------------------------------------------------------------- sources of truth

/** Apps: the folders of apps/ that have a src/main.ts. */
const APPS = readdirSync(join(ROOT, 'apps'))
  .filter((name) => existsSync(join(ROOT, 'apps', name, 'src', 'main.ts')))
  .sort();
const ROUTER = 'residency-router';
const SERVICES = APPS.filter((app) => app !== ROUTER);

const PLATFORM_CONFIG = read('libs/platform/config/src/platform-config.ts');
const ROUTER_CONFIG = read('libs/feature/residency-router/src/residency-router.config.ts');

/** Properties declared `NAME!:` (required, no default) in a config class source. */
function requiredInSource(source: string): string[] {
  return [...source.matchAll(/^\s*([A-Z][A-Z0-9_]*)!:/gm)].map((match) => match[1]!).sort();
}

/** Every property a config class source declares (`NAME!:`, `NAME?:`, `NAME =`, `NAME:`). */
function declaredInSource(source: string): string[] {
  return [...source.matchAll(/^\s*([A-Z][A-Z0-9_]*)[!?]?\s*[:=]/gm)].map((match) => match[1]!);
}

/** Required by PlatformConfig (every app) — kept in sync with the source by a test below. */
const PLATFORM_REQUIRED = ['DATABASE_URL', 'KEY_ENCRYPTION_KEY', 'REGION'];
/** Required by the router's proxy (ResidencyProxyConfig). */
const ROUTER_REQUIRED = ['SERVICE_URLS'];
/** Variables with a local-stack default that production must set explicitly. */
const PRODUCTION_REQUIRED = ['HTTP_HOST', 'HTTP_PORT', 'NATS_URL', 'PUBLIC_BASE_URL', 'REGION_URLS', 'SERVICE_NAME'];
/** Every config class of every library: a manifest may set only variables some process reads. */
function configSources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return configSources(path);
    return entry.name.endsWith('.config.ts') || entry.name === 'platform-config.ts' ? [read(path)] : [];
  });
}
const KNOWN_VARIABLES = new Set(configSources('libs').flatMap(declaredInSource));
/** Deployment-wide keys a feature needs in every region: taken from the environment, never a literal. */
const FEATURE_KEYS: Record<string, string[]> = {
  'decision-gateway': ['PEOPLE_LOOKUP_KEY'],
  'consent-records': ['DIRECTORY_KEY'],
};

function requiredFor(app: string): string[] {
  return [...PLATFORM_REQUIRED, ...PRODUCTION_REQUIRED, ...(app === ROUTER ? ROUTER_REQUIRED : [])];
}

const ROUTER_PORTS: Record<Region, number> = { us: 8081, eu: 8082, ap: 8083 };

/** A base64 encoding of 32 bytes: what a literal KEY_ENCRYPTION_KEY would look like. */
const LITERAL_KEY = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=/;

/** Parses `name=url,name=url` (SERVICE_URLS, REGION_URLS). */
function pairs(value: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const pair of value.split(',')) {
    const index = pair.indexOf('=');
    if (index <= 0) throw new Error(`"${pair}" is not name=url`);
    result.set(pair.slice(0, index), pair.slice(index + 1));
  }
  return result;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('sources of truth', () => {
  it('finds the eight apps, matching the router’s SERVICE_NAMES', () => {
    const names = [...SERVICE_NAMES].sort();
    expect(names).toHaveLength(8);
    expect(APPS).toEqual(names);
    expect(APPS).toContain(ROUTER);
  });

  it('the explicit required lists match the config classes (no drift)', () => {
    expect(requiredInSource(PLATFORM_CONFIG)).toEqual([...PLATFORM_REQUIRED].sort());
    expect(requiredInSource(ROUTER_CONFIG)).toEqual([...ROUTER_REQUIRED].sort());
    for (const name of PRODUCTION_REQUIRED) expect(KNOWN_VARIABLES).toContain(name);
  });
});

// ---------------------------------------------------------------- docker compose

interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean>;
  ports?: string[];
  healthcheck?: { test?: string[] | string };
  depends_on?: Record<string, { condition?: string }>;
  configs?: Array<{ source: string; target: string }>;
  read_only?: boolean;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  configs?: Record<string, { content?: string; file?: string }>;
}

const COMPOSE_TEXT = read('docker-compose.yml');
const compose = parse(COMPOSE_TEXT, { merge: true, maxAliasCount: -1 }) as ComposeFile;
const composeName = (region: Region, app: string): string => `${region}-${app}`;
const commandText = (service: ComposeService | undefined): string =>
  Array.isArray(service?.command) ? service.command.join(' ') : String(service?.command ?? '');
const env = (region: Region, app: string): Record<string, string> =>
  Object.fromEntries(Object.entries(compose.services[composeName(region, app)]?.environment ?? {}).map(([k, v]) => [k, String(v)]));

describe('docker-compose.yml', () => {
  it('runs Postgres 15 with an init script creating every region database', () => {
    const postgres = compose.services.postgres;
    expect(postgres?.image).toMatch(/^postgres:15(\.|-|$)/);
    const mount = postgres?.configs?.find((config) => config.target.startsWith('/docker-entrypoint-initdb.d/'));
    expect(mount?.target).toMatch(/\.sql$/);
    const sql = compose.configs?.[mount!.source]?.content ?? '';
    for (const region of REGIONS) expect(sql).toMatch(new RegExp(`CREATE DATABASE svc_${region};`));
    expect(postgres?.healthcheck?.test).toBeDefined();
  });

  it('runs NATS 2.10 with JetStream', () => {
    const nats = compose.services.nats;
    expect(nats?.image).toMatch(/^nats:2\.10(\.|-|$)/);
    expect(commandText(nats).split(/\s+/)).toContain('-js');
    expect(nats?.healthcheck?.test).toBeDefined();
  });

  it('runs MailDev as the SMTP sink the sign-in codes go to, with its inbox on 1080', () => {
    const maildev = compose.services.maildev;
    expect(maildev?.image).toMatch(/^maildev\/maildev:\d+\.\d+\.\d+$/);
    expect(maildev?.ports).toEqual(['1080:1080']);
    expect(maildev?.healthcheck?.test).toBeDefined();
    for (const region of REGIONS) expect(env(region, 'decision-gateway').SMTP_URL).toBe('${SMTP_URL:-smtp://maildev:1025}');
  });

  it('puts PgBouncer in transaction pooling in front of Postgres, with a bounded server pool', () => {
    const pgbouncer = compose.services.pgbouncer;
    expect(pgbouncer?.image).toMatch(/^edoburu\/pgbouncer:v\d+\.\d+\.\d+(-p\d+)?$/);
    expect(pgbouncer?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(pgbouncer?.healthcheck?.test).toBeDefined();
    const iniMount = pgbouncer?.configs?.find((config) => config.target === '/etc/pgbouncer/pgbouncer.ini');
    const ini = compose.configs?.[iniMount?.source ?? '']?.content ?? '';
    const setting = (name: string) => new RegExp(`^\\s*${name}\\s*=\\s*(.*)$`, 'm').exec(ini)?.[1]?.trim();
    expect(setting('pool_mode')).toBe('transaction');
    expect(setting('listen_port')).toBe('6432');
    expect(ini).toMatch(/^\s*\* = host=postgres port=5432$/m);
    expect(Number(setting('max_db_connections'))).toBeGreaterThan(0);
    expect(setting('auth_type')).toBe('scram-sha-256');
    // Server connections: PgBouncer's per database × regions, plus one direct LISTEN per process.
    const processes = REGIONS.length * SERVICES.length;
    const budget = REGIONS.length * Number(setting('max_db_connections')) + processes;
    const maxConnections = Number(/max_connections=(\d+)/.exec(commandText(compose.services.postgres))?.[1]);
    expect(budget).toBeLessThanOrEqual(maxConnections - 10);
    const users =
      compose.configs?.[pgbouncer?.configs?.find((config) => config.target === '/etc/pgbouncer/userlist.txt')?.source ?? '']?.content ?? '';
    expect(users.trim()).toBe('"svc" "${POSTGRES_PASSWORD:?set it}"');
  });

  it('has exactly postgres, pgbouncer, nats, maildev and every app in every region', () => {
    const expected = [
      'maildev',
      'nats',
      'pgbouncer',
      'postgres',
      ...REGIONS.flatMap((region) => APPS.map((app) => composeName(region, app))),
    ].sort();
    expect(Object.keys(compose.services).sort()).toEqual(expected);
  });

  describe.each(REGIONS.flatMap((region) => APPS.map((app) => [region, app] as const)))('%s %s', (region, app) => {
    const service = (): ComposeService => compose.services[composeName(region, app)]!;

    it('runs its compiled entry point', () => {
      expect(commandText(service())).toBe(`node scripts/run-dist.js dist/apps/${app}/src/main.js`);
    });

    it('wires every required variable to a known config property', () => {
      const variables = env(region, app);
      for (const name of requiredFor(app)) expect({ name, set: (variables[name] ?? '') !== '' }).toEqual({ name, set: true });
      for (const name of Object.keys(variables)) expect(KNOWN_VARIABLES).toContain(name);
      if (app !== ROUTER) expect(variables.SERVICE_URLS).toBeUndefined();
    });

    it('serves its own region on 0.0.0.0:8080 under its own name', () => {
      const variables = env(region, app);
      expect(variables.REGION).toBe(region);
      expect(variables.SERVICE_NAME).toBe(app);
      expect(variables.HTTP_HOST).toBe('0.0.0.0');
      expect(variables.HTTP_PORT).toBe('8080');
      expect(variables.PUBLIC_BASE_URL).toContain(String(ROUTER_PORTS[region]));
      expect([...pairs(variables.REGION_URLS!).keys()].sort()).toEqual([...REGIONS].sort());
    });

    it("uses its own region's database through PgBouncer, and Postgres directly for LISTEN and migrations", () => {
      const url = env(region, app).DATABASE_URL!;
      expect(url).toMatch(/^postgres(ql)?:\/\//);
      expect(url).toMatch(new RegExp(`@pgbouncer:6432/svc_${region}$`));
      expect(env(region, app).DATABASE_DIRECT_URL).toMatch(new RegExp(`^postgres(ql)?://[^@]+@postgres:5432/svc_${region}$`));
    });

    it('takes KEY_ENCRYPTION_KEY from the environment, never a literal', () => {
      expect(env(region, app).KEY_ENCRYPTION_KEY).toMatch(/^\$\{KEY_ENCRYPTION_KEY(:?\?[^}]*)?\}$/);
    });

    it('takes its deployment-wide keys from the environment, required, never a literal', () => {
      const variables = env(region, app);
      for (const name of FEATURE_KEYS[app] ?? []) {
        expect({ name, value: variables[name] }).toEqual({ name, value: expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`)) });
      }
    });

    it('checks /readyz and waits for healthy Postgres and NATS', () => {
      expect(JSON.stringify(service().healthcheck?.test)).toContain('/readyz');
      expect(service().depends_on?.postgres?.condition).toBe('service_healthy');
      expect(service().depends_on?.pgbouncer?.condition).toBe('service_healthy');
      expect(service().depends_on?.nats?.condition).toBe('service_healthy');
    });
  });

  describe.each(REGIONS)('%s router', (region) => {
    const router = (): ComposeService => compose.services[composeName(region, ROUTER)]!;

    it(`publishes ${ROUTER_PORTS[region]}`, () => {
      expect(router().ports).toEqual([`${ROUTER_PORTS[region]}:8080`]);
      for (const app of SERVICES) expect(compose.services[composeName(region, app)]?.ports).toBeUndefined();
    });

    it('names every other service of its region in SERVICE_URLS, and no other region', () => {
      const urls = pairs(env(region, ROUTER).SERVICE_URLS!);
      expect([...urls.keys()].sort()).toEqual(SERVICES);
      for (const [name, url] of urls) {
        const host = new URL(url).hostname;
        expect(host).toBe(composeName(region, name));
        expect(new URL(url).port).toBe('8080');
        for (const other of REGIONS.filter((r) => r !== region)) expect(host.startsWith(`${other}-`)).toBe(false);
      }
    });

    it('starts after its region’s services are healthy', () => {
      for (const app of SERVICES) expect(router().depends_on?.[composeName(region, app)]?.condition).toBe('service_healthy');
    });
  });

  it('publishes no router port twice', () => {
    const published = Object.entries(compose.services)
      .filter(([name]) => name !== 'maildev')
      .flatMap(([, service]) => service.ports ?? []);
    expect(published.sort()).toEqual(REGIONS.map((region) => `${ROUTER_PORTS[region]}:8080`).sort());
  });
});

// ---------------------------------------------------------------- Dockerfile

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds with npm ci and npm run build, and runs as a non-root user', () => {
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((match) => match[1]!);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it('checks /healthz and runs an app through run-dist', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK[\s\S]*\/healthz/m);
    expect(dockerfile).toMatch(/^CMD \["node", "scripts\/run-dist\.js", "dist\/apps\/[a-z-]+\/src\/main\.js"\]$/m);
  });
});

// ---------------------------------------------------------------- Helm chart

interface Values {
  region?: string;
  clusterDomain?: string;
  config?: Record<string, string | number>;
  secrets?: Record<string, Record<string, string>>;
  services?: Record<string, { replicas?: number; router?: boolean }>;
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  podSecurityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  probes?: Record<string, { path?: string }>;
  podDisruptionBudget?: { enabled?: boolean };
  resources?: { requests?: object; limits?: object };
}

const CHART = 'helm/svc';
const chart = parse(read(`${CHART}/Chart.yaml`)) as { apiVersion?: string; name?: string };
const defaults = parse(read(`${CHART}/values.yaml`)) as Values;
const regional = Object.fromEntries(REGIONS.map((region) => [region, parse(read(`${CHART}/values-${region}.yaml`)) as Values])) as Record<
  Region,
  Values
>;
const template = (name: string): string => read(`${CHART}/templates/${name}`);

/** Every name=value an env var gets in the templates: `- name: X` entries and ConfigMap `X:` keys. */
function templatedVariables(): Set<string> {
  const fromEnv = [...template('deployment.yaml').matchAll(/- name: ([A-Z][A-Z0-9_]*)$/gm)].map((match) => match[1]!);
  const fromConfigMap = [...template('configmap.yaml').matchAll(/^ {2}([A-Z][A-Z0-9_]*): \S/gm)].map((match) => match[1]!);
  return new Set([...fromEnv, ...fromConfigMap]);
}

describe('helm/svc', () => {
  it('is a v2 chart with every template', () => {
    expect(chart.apiVersion).toBe('v2');
    expect(chart.name).toBe('svc');
    const templates = [
      '_helpers.tpl',
      'configmap.yaml',
      'deployment.yaml',
      'service.yaml',
      'ingress.yaml',
      'pdb.yaml',
      'networkpolicy.yaml',
      'migrations-job.yaml',
      'servicemonitor.yaml',
      'postgres-cluster.yaml',
    ];
    expect(existsSync(join(ROOT, CHART, 'values.schema.json'))).toBe(true);
    for (const name of templates) {
      expect(existsSync(join(ROOT, CHART, 'templates', name))).toBe(true);
    }
  });

  it('lists every app in values, the router flagged as such', () => {
    expect(Object.keys(defaults.services ?? {}).sort()).toEqual(APPS);
    const routers = Object.entries(defaults.services ?? {}).filter(([, service]) => service.router === true);
    expect(routers.map(([name]) => name)).toEqual([ROUTER]);
  });

  it.each(REGIONS)('values-%s sets its region, URLs and secret references', (region) => {
    const values = regional[region];
    expect(values.region).toBe(region);
    expect(String(values.config?.publicBaseUrl)).toMatch(/^https?:\/\//);
    expect([...pairs(String(values.config?.regionUrls)).keys()].sort()).toEqual([...REGIONS].sort());
    expect(pairs(String(values.config?.regionUrls)).get(region)).toBe(values.config?.publicBaseUrl);
    expect(values.secrets?.keyEncryptionKey?.existingSecret).toMatch(new RegExp(`^[a-z0-9-]*${region}[a-z0-9-]*$`));
    expect(values.secrets?.databaseUrl?.existingSecret).toMatch(new RegExp(`^[a-z0-9-]*${region}[a-z0-9-]*$`));
    // A region release must not override the app list (every app runs in every region).
    expect(values.services).toBeUndefined();
  });

  it('keeps secrets out of values: only existingSecret names and keys', () => {
    for (const values of [defaults, ...Object.values(regional)]) {
      for (const secret of Object.values(values.secrets ?? {})) {
        expect(Object.keys(secret).filter((key) => !['existingSecret', 'key'].includes(key))).toEqual([]);
      }
    }
    expect(defaults.secrets?.keyEncryptionKey?.key).toBe('KEY_ENCRYPTION_KEY');
    expect(defaults.secrets?.databaseUrl?.key).toBe('DATABASE_URL');
  });

  it('wires every required variable into every Deployment', () => {
    const variables = templatedVariables();
    for (const app of APPS) for (const name of requiredFor(app)) expect(variables).toContain(name);
    for (const name of variables) expect(KNOWN_VARIABLES).toContain(name);
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/envFrom:\s+- configMapRef:\s+name: \{\{ include "svc\.fullname" \$ \}\}-env/);
    expect(template('configmap.yaml')).toMatch(/name: \{\{ include "svc\.fullname" \. \}\}-env/);
    expect(deployment).toContain('dist/apps/{{ $name }}/src/main.js');
    expect(deployment).toMatch(/- name: SERVICE_NAME\s+value: \{\{ \$name \| quote \}\}/);
    expect(template('configmap.yaml')).toMatch(/REGION: \{\{ include "svc\.region" \. \| quote \}\}/);
    expect(template('configmap.yaml')).toMatch(/HTTP_HOST: "0\.0\.0\.0"/);
  });

  it('reads KEY_ENCRYPTION_KEY and DATABASE_URL from the existing Secrets', () => {
    const deployment = template('deployment.yaml');
    for (const [name, value] of [
      ['KEY_ENCRYPTION_KEY', 'keyEncryptionKey'],
      ['DATABASE_URL', 'databaseUrl'],
    ] as const) {
      expect(deployment).toMatch(
        new RegExp(
          `- name: ${name}\\s+valueFrom:\\s+secretKeyRef:\\s+name: \\{\\{ required "[^"]+" \\$\\.Values\\.secrets\\.${value}\\.existingSecret \\}\\}\\s+key: \\{\\{ \\$\\.Values\\.secrets\\.${value}\\.key \\}\\}`,
        ),
      );
    }
    expect(template('configmap.yaml')).not.toMatch(/KEY_ENCRYPTION_KEY:|DATABASE_URL:/);
  });

  it("builds the router's SERVICE_URLS from the in-cluster Service names of the other apps", () => {
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(
      /\{\{- if \$svc\.router \}\}\s+- name: SERVICE_URLS\s+value: \{\{ include "svc\.serviceUrls" \$ \| quote \}\}/,
    );
    const helpers = template('_helpers.tpl');
    const serviceUrls = /define "svc\.serviceUrls"([\s\S]*?)\{\{- end -\}\}\s*$/.exec(helpers)?.[1] ?? '';
    expect(serviceUrls).toContain('range $name, $svc := .Values.services');
    expect(serviceUrls).toContain('if not $svc.router');
    expect(serviceUrls).toContain('include "svc.serviceName" (dict "root" $root "name" $name)');
    expect(serviceUrls).toContain('$root.Release.Namespace');
    expect(serviceUrls).toMatch(/printf "%s=http:\/\/%s:%d" \$name \$host \(int \$root\.Values\.servicePort\)/);
    // The Services carry exactly the names SERVICE_URLS points at.
    expect(template('service.yaml')).toMatch(/kind: Service\s+metadata:[\s\S]*?name: \{\{ include "svc\.serviceName" \$ctx \}\}/);
    expect(template('service.yaml')).toContain('range $name, $svc := .Values.services');
  });

  it('probes /readyz (readiness) and /healthz (liveness)', () => {
    expect(defaults.probes?.readiness?.path).toBe('/readyz');
    expect(defaults.probes?.liveness?.path).toBe('/healthz');
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/readinessProbe:\s+httpGet:\s+path: \{\{ \$\.Values\.probes\.readiness\.path \}\}/);
    expect(deployment).toMatch(/livenessProbe:\s+httpGet:\s+path: \{\{ \$\.Values\.probes\.liveness\.path \}\}/);
    for (const values of Object.values(regional)) expect(values.probes).toBeUndefined();
  });

  it('runs non-root with a read-only root filesystem, resources and a PodDisruptionBudget', () => {
    expect(defaults.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(defaults.podSecurityContext?.runAsNonRoot).toBe(true);
    expect(defaults.podSecurityContext?.runAsUser).toBeGreaterThan(0);
    expect(defaults.resources?.requests).toBeDefined();
    expect(defaults.resources?.limits).toBeDefined();
    const deployment = template('deployment.yaml');
    expect(deployment).toContain('toYaml $.Values.securityContext');
    expect(deployment).toContain('toYaml $.Values.podSecurityContext');
    expect(deployment).toMatch(/resources:\s+\{\{- toYaml \(\$svc\.resources \| default \$\.Values\.resources\)/);
    expect(defaults.podDisruptionBudget?.enabled).toBe(true);
    expect(template('pdb.yaml')).toMatch(/kind: PodDisruptionBudget/);
    expect(template('pdb.yaml')).toContain('range $name, $svc := .Values.services');
  });

  it('exposes only the router through the Ingress', () => {
    const ingress = template('ingress.yaml');
    expect(ingress).toMatch(/kind: Ingress/);
    expect(ingress).toMatch(/\{\{- if \$svc\.router \}\}/);
    expect(ingress).toMatch(/service:\s+name: \{\{ include "svc\.serviceName" \$ctx \}\}/);
  });
});

// ---------------------------------------------------------------- NATS region accounts

const ACCOUNTS_FILE = 'deploy/nats/accounts.conf';
const ACCOUNTS_TEXT = read(ACCOUNTS_FILE);
const BUS_PREFIX = 'svc';

interface RegionAccount {
  user?: string;
  passwordVariable?: string;
  publish: string[];
  subscribe: string[];
  exports: string[];
  imports: Array<{ account: string; subject: string }>;
  streamExports: string[];
  streamImports: Array<{ account: string; subject: string }>;
}

const quotedList = (text: string | undefined): string[] => [...(text ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!);

/** The account block of a region in accounts.conf, read as text (the file is NATS config syntax). */
function regionAccount(region: Region): RegionAccount {
  const upper = region.toUpperCase();
  const start = ACCOUNTS_TEXT.search(new RegExp(`^ {2}${upper}: \\{$`, 'm'));
  if (start < 0) throw new Error(`${ACCOUNTS_FILE} has no account ${upper}`);
  const rest = ACCOUNTS_TEXT.slice(start + 1);
  const end = rest.search(/^ {2}[A-Z]+: \{$|^\}$/m);
  const block = rest.slice(0, end < 0 ? undefined : end);
  return {
    user: /^\s+user: (\S+)$/m.exec(block)?.[1],
    passwordVariable: /^\s+password: \$(\S+)$/m.exec(block)?.[1],
    publish: quotedList(/publish: \{ allow: \[([^\]]*)\] \}/.exec(block)?.[1]),
    subscribe: quotedList(/subscribe: \{ allow: \[([^\]]*)\] \}/.exec(block)?.[1]),
    exports: [...block.matchAll(/\{ service: "([^"]+)" \}/g)].map((match) => match[1]!),
    imports: [...block.matchAll(/\{ service: \{ account: ([A-Z]+), subject: "([^"]+)" \} \}/g)].map((match) => ({
      account: match[1]!,
      subject: match[2]!,
    })),
    streamExports: [...block.matchAll(/\{ stream: "([^"]+)" \}/g)].map((match) => match[1]!),
    streamImports: [...block.matchAll(/\{ stream: \{ account: ([A-Z]+), subject: "([^"]+)" \} \}/g)].map((match) => ({
      account: match[1]!,
      subject: match[2]!,
    })),
  };
}

/** Every .ts source file (not a test) under a folder. */
const sourcesUnder = (dir: string): string[] =>
  filesUnder(dir).filter((path) => path.endsWith('.ts') && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(path));

/**
 * Request/reply methods the code asks of another region: through `RpcClient.tryCallInRegion(region, method, …)`
 * or `RpcClient.inRegion(region).call(method, …)`, the only cross-region callers.
 */
const CROSS_REGION_METHODS = [
  ...new Set(
    sourcesUnder('libs').flatMap((path) =>
      [...read(path).matchAll(/\b(?:tryCallInRegion\(\s*[^,]+,|inRegion\([^)]*\)\s*\.call\()\s*'([a-z_]+\.[a-z_]+)'/gi)].map(
        (match) => match[1]!,
      ),
    ),
  ),
].sort();

const crossRegionSubject = (region: Region, method: string): string => `${BUS_PREFIX}.${region}.rpc.${method}`;

describe('NATS region accounts (deploy/nats/accounts.conf)', () => {
  it('finds the cross-region requests of the code, all of them through the RPC client', () => {
    expect(CROSS_REGION_METHODS).toEqual([
      'audit.get_chain_info',
      'gateway.check_person_homed',
      'gateway.find_person_home',
      'gateway.open_agreement_signing',
      'gateway.read_person_for_support',
      'gateway.record_agreement_signature',
      'gateway.resolve_access_token',
      'gateway.resolve_counterparty_token',
      'oap.consume_grant',
      'oap.grant_status',
    ]);
    // A subject built for a region other than the process's own is built only by the bus's Nest RPC
    // client (`RpcClient.inRegion`, which `tryCallInRegion` uses).
    const foreign = sourcesUnder('libs')
      .filter((path) => path !== 'libs/platform/contracts/src/subjects.ts')
      .flatMap((path) =>
        [...read(path).matchAll(/rpcSubject\(([^,]+),\s*([^,]+),/g)]
          .filter((match) => !/^(this\.)?(bus|options)\.region$|^this\.bus\.region$/.test(match[2]!.trim()))
          .map(() => path),
      );
    expect([...new Set(foreign)]).toEqual(['libs/platform/bus/src/nest-rpc.ts']);
  });

  it.each(REGIONS)('gives %s one user whose password comes from the environment and whose subjects stay in its region', (region) => {
    const account = regionAccount(region);
    expect(account.user).toBe(`svc-${region}`);
    expect(account.passwordVariable).toBe(`NATS_${region.toUpperCase()}_PASSWORD`);
    const others = REGIONS.filter((r) => r !== region);
    expect(account.subscribe.sort()).toEqual([`${BUS_PREFIX}.${region}.>`, '_INBOX.>'].sort());
    expect(account.publish.sort()).toEqual(
      [
        `${BUS_PREFIX}.${region}.>`,
        '_INBOX.>',
        '$JS.API.>',
        '$JS.ACK.>',
        ...others.flatMap((other) => CROSS_REGION_METHODS.map((method) => crossRegionSubject(other, method))),
      ].sort(),
    );
    // No default user for clients without credentials: anonymous connections are refused.
    expect(ACCOUNTS_TEXT).not.toMatch(/^\s*no_auth_user/m);
  });

  it.each(REGIONS)('exports exactly the cross-region methods of %s and imports those of the other regions', (region) => {
    const account = regionAccount(region);
    expect(account.exports.sort()).toEqual(CROSS_REGION_METHODS.map((method) => crossRegionSubject(region, method)).sort());
    const expectedImports = REGIONS.filter((r) => r !== region).flatMap((other) =>
      CROSS_REGION_METHODS.map((method) => ({ account: other.toUpperCase(), subject: crossRegionSubject(other, method) })),
    );
    const key = (i: { account: string; subject: string }): string => `${i.account} ${i.subject}`;
    expect(account.imports.map(key).sort()).toEqual(expectedImports.map(key).sort());
  });

  it.each(REGIONS)(
    "exports only the cross-border directory subject of %s as a stream, and imports the other regions' under the same subject",
    (region) => {
      const account = regionAccount(region);
      const directory = (r: Region): string => `${BUS_PREFIX}.${r}.evt.directory.subject_status`;
      expect(account.streamExports).toEqual([directory(region)]);
      expect(account.streamImports).toEqual(
        REGIONS.filter((r) => r !== region).map((other) => ({ account: other.toUpperCase(), subject: directory(other) })),
      );
    },
  );

  it('names the directory event the code replicates across regions', () => {
    expect(read('libs/feature/consent-records/src/directory/directory-replica.ts')).toContain(
      "export const DIRECTORY_EVENT = 'directory.subject_status' as const;",
    );
  });

  it('runs the compose NATS with the accounts file and every account password from the environment', () => {
    const nats = compose.services.nats as ComposeService & { environment?: Record<string, string> };
    expect(commandText(nats).split(/\s+/)).toEqual(expect.arrayContaining(['-c', '/etc/nats/accounts.conf', '-js']));
    const mount = nats.configs?.find((config) => config.target === '/etc/nats/accounts.conf');
    expect(compose.configs?.[mount!.source]?.file).toBe(`./${ACCOUNTS_FILE}`);
    for (const region of REGIONS) {
      const variable = `NATS_${region.toUpperCase()}_PASSWORD`;
      expect(String(nats.environment?.[variable])).toMatch(new RegExp(`^\\$\\{${variable}:\\?[^}]*\\}$`));
    }
  });

  describe.each(REGIONS.flatMap((region) => APPS.map((app) => [region, app] as const)))('compose %s %s', (region, app) => {
    it("connects as its region's user, on the accounts' bus prefix", () => {
      const variables = env(region, app);
      expect(variables.NATS_USER).toBe(regionAccount(region).user);
      expect(variables.NATS_PASSWORD).toMatch(new RegExp(`^\\$\\{NATS_${region.toUpperCase()}_PASSWORD:\\?[^}]*\\}$`));
      expect(variables.BUS_PREFIX).toBe(BUS_PREFIX);
    });
  });

  it.each(REGIONS)("gives every Deployment of the %s release its region's user, and the password from a Secret", (region) => {
    const values = regional[region] as Values & { config?: { natsUser?: string } };
    expect(values.config?.natsUser).toBe(regionAccount(region).user);
    expect(values.secrets?.natsPassword?.existingSecret).toMatch(new RegExp(`^[a-z0-9-]*${region}[a-z0-9-]*$`));
    expect(defaults.secrets?.natsPassword?.key).toBe('NATS_PASSWORD');
    expect(defaults.config?.busPrefix).toBe(BUS_PREFIX);
    expect(template('configmap.yaml')).toMatch(/NATS_USER: \{\{ required "[^"]+" \.Values\.config\.natsUser \| quote \}\}/);
    expect(template('deployment.yaml')).toMatch(
      /- name: NATS_PASSWORD\s+valueFrom:\s+secretKeyRef:\s+name: \{\{ required "[^"]+" \$\.Values\.secrets\.natsPassword\.existingSecret \}\}\s+key: \{\{ \$\.Values\.secrets\.natsPassword\.key \}\}/,
    );
    expect(template('configmap.yaml')).not.toMatch(/NATS_PASSWORD:/);
  });
});

// ---------------------------------------------------------------- no secrets anywhere

describe('secrets', () => {
  const files = ['docker-compose.yml', 'Dockerfile', '.dockerignore', 'deploy/README.md', ...filesUnder(CHART)].filter((path) =>
    existsSync(join(ROOT, path)),
  );

  it.each(files)('%s holds no literal key-encryption key', (path) => {
    const text = read(path);
    expect(LITERAL_KEY.exec(text)?.[0]).toBeUndefined();
    for (const line of text.split('\n').filter((l) => /KEY_ENCRYPTION_KEY\s*[:=]/.test(l))) {
      expect(line).not.toMatch(/KEY_ENCRYPTION_KEY\s*[:=]\s*["']?[A-Za-z0-9+/]{8,}/);
    }
  });

  it('compose never gives Postgres a literal password', () => {
    expect(compose.services.postgres?.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]*\}$/);
    expect(COMPOSE_TEXT).not.toMatch(/postgres:\/\/[^:@\s]+:(?!\$\{)[^@\s]+@/);
  });
});

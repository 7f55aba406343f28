/**
 * Renders the chart with the test renderer of deploy/helm-template.ts for every region (and with
 * its optional parts on), parses every manifest as YAML and checks how the objects fit together:
 * selectors and labels, the router's SERVICE_URLS and the Services, hooks, policies, the Ingress.
 * The Kubernetes API schemas are checked by deploy/helm-schemas.spec.ts; limits: deploy/README.md.
 */
import { REGIONS } from '@svc/config';
import { renderChart as render, regionValues, type Manifest } from './helm-chart';
import { helmMerge } from './helm-template';

const ofKind = (manifests: Manifest[], kind: string): Manifest[] => manifests.filter((manifest) => manifest.kind === kind);
const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined): boolean =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

describe.each(REGIONS)('helm/svc rendered for %s', (region) => {
  const release = `svc-${region}`;
  const manifests = render(regionValues(region), release, release);
  const deployments = ofKind(manifests, 'Deployment');
  const podLabels = (deployment: Manifest): Record<string, string> => deployment.spec.template.metadata.labels as Record<string, string>;

  it('renders well-formed objects with DNS names', () => {
    for (const manifest of manifests) {
      expect(manifest.apiVersion).toMatch(/^[a-z0-9.]*\/?v\d/);
      expect(manifest.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
      expect(manifest.metadata.labels?.['svc.example.com/region']).toBe(region);
    }
    const kinds = manifests.map((manifest) => manifest.kind);
    expect(kinds.filter((kind) => kind === 'Deployment')).toHaveLength(8);
    expect(kinds.filter((kind) => kind === 'Service')).toHaveLength(8);
    expect(kinds.filter((kind) => kind === 'PodDisruptionBudget')).toHaveLength(8);
    expect(kinds.filter((kind) => kind === 'NetworkPolicy')).toHaveLength(10);
    expect(kinds.filter((kind) => kind === 'Job')).toHaveLength(1);
    expect(kinds).not.toContain('ServiceMonitor');
    expect(kinds).not.toContain('Cluster');
  });

  it('gives each Deployment a Service and a PodDisruptionBudget that select its pods only', () => {
    for (const deployment of deployments) {
      expect(matches(deployment.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
      const service = ofKind(manifests, 'Service').find((candidate) => candidate.metadata.name === deployment.metadata.name)!;
      const selected = deployments.filter((other) => matches(service.spec.selector, podLabels(other)));
      expect(selected.map((other) => other.metadata.name)).toEqual([deployment.metadata.name]);
      const budget = ofKind(manifests, 'PodDisruptionBudget').find((candidate) => candidate.metadata.name === deployment.metadata.name)!;
      expect(deployments.filter((other) => matches(budget.spec.selector.matchLabels, podLabels(other)))).toHaveLength(1);
    }
  });

  it("points the router's SERVICE_URLS at the Services of the other apps", () => {
    const router = deployments.find((deployment) => deployment.metadata.name === `${release}-residency-router`)!;
    const env = router.spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>;
    const urls = env.find((variable) => variable.name === 'SERVICE_URLS')!.value!.split(',');
    expect(urls).toHaveLength(7);
    const services = new Set(ofKind(manifests, 'Service').map((service) => `${service.metadata.name}.${release}.svc.cluster.local`));
    for (const pair of urls) expect(services).toContain(new URL(pair.slice(pair.indexOf('=') + 1)).hostname);
  });

  it('denies by default, opens the router, and keeps the other apps to the release', () => {
    const policies = ofKind(manifests, 'NetworkPolicy');
    const deny = policies.find((policy) => policy.metadata.name === `${release}-default-deny`)!;
    expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    for (const deployment of deployments) expect(matches(deny.spec.podSelector.matchLabels, podLabels(deployment))).toBe(true);
    const job = ofKind(manifests, 'Job')[0]!;
    expect(matches(deny.spec.podSelector.matchLabels, job.spec.template.metadata.labels)).toBe(true);

    for (const deployment of deployments) {
      const own = policies.filter((policy) => policy.metadata.name === deployment.metadata.name);
      expect(own).toHaveLength(1);
      expect(matches(own[0]!.spec.podSelector.matchLabels, podLabels(deployment))).toBe(true);
      const rule = own[0]!.spec.ingress[0] as { from?: Array<{ podSelector?: { matchLabels: Record<string, string> } }> };
      if (deployment.metadata.name.endsWith('residency-router')) expect(rule.from).toBeUndefined();
      else {
        // Every Deployment of the release, and nothing else, is allowed in.
        for (const other of deployments) expect(matches(rule.from![0]!.podSelector!.matchLabels, podLabels(other))).toBe(true);
        expect(rule.from).toHaveLength(1);
      }
    }
  });

  it('lets only the apps that call customer URLs out to the public internet', () => {
    const policies = ofKind(manifests, 'NetworkPolicy');
    const open = policies.filter((policy) =>
      (policy.spec.egress ?? []).some((rule: { to?: Array<{ ipBlock?: { cidr: string } }> }) =>
        rule.to?.some((peer) => peer.ipBlock?.cidr === '0.0.0.0/0'),
      ),
    );
    expect(open.map((policy) => policy.metadata.name).sort()).toEqual(
      ['consent-records', 'oap-authorizer', 'oversight-witness', 'webhook-dispatcher'].map((app) => `${release}-${app}`),
    );
    for (const policy of open) {
      const block = policy.spec.egress[0].to[0].ipBlock as { except: string[] };
      expect(block.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
    }
    const infrastructure = policies.find((policy) => policy.metadata.name === `${release}-egress-infrastructure`)!;
    const ports = (infrastructure.spec.egress as Array<{ ports: Array<{ port: number }> }>).map((rule) =>
      rule.ports.map((port) => port.port),
    );
    expect(ports).toEqual([[53, 53], [5432], [4222], [8080]]);
  });

  it('routes only the public path families through the Ingress', () => {
    const [ingress] = ofKind(manifests, 'Ingress');
    const paths = (ingress!.spec.rules[0].http.paths as Array<{ path: string; backend: { service: { name: string } } }>).map(
      (path) => path.path,
    );
    expect(paths).toContain('/api');
    for (const hidden of ['/', '/metrics', '/readyz', '/healthz']) expect(paths).not.toContain(hidden);
    expect(ingress!.spec.rules[0].host).toBe(`${region}.api.example.com`);
  });

  it('runs the migration Job as a pre-install/pre-upgrade hook with the database Secret', () => {
    const [job] = ofKind(manifests, 'Job');
    expect(job!.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(job!.spec.backoffLimit).toBe(3);
    const container = job!.spec.template.spec.containers[0];
    expect(container.command).toEqual(['node', 'scripts/run-dist.js', 'dist/deploy/migrate/main.js']);
    expect(container.env[0]).toEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: `svc-${region}-database`, key: 'DATABASE_URL' } },
    });
  });

  it('gives every app the PgBouncer URL as DATABASE_URL and the direct URL as DATABASE_DIRECT_URL (LISTEN, migrations)', () => {
    for (const deployment of ofKind(manifests, 'Deployment')) {
      const env = deployment.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: unknown }>;
      expect(env.find((e) => e.name === 'DATABASE_URL')?.valueFrom).toEqual({
        secretKeyRef: { name: `svc-${region}-database-pooled`, key: 'DATABASE_URL' },
      });
      expect(env.find((e) => e.name === 'DATABASE_DIRECT_URL')?.valueFrom).toEqual({
        secretKeyRef: { name: `svc-${region}-database`, key: 'DATABASE_URL' },
      });
    }
  });
});

describe('helm/svc rendered with its optional parts', () => {
  const manifests = render(
    regionValues('eu', {
      serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
      postgres: { cloudNativePG: { enabled: true } },
      networkPolicy: { postgres: { to: [] } },
      services: {
        'audit-chain': {
          env: { AUDIT_WITNESS_URL: 'https://witness.example.net', AUDIT_CHECKPOINT_INTERVAL_SECONDS: 900 },
          secretEnv: { AUDIT_WITNESS_KEY: { secretName: 'svc-eu-witness', key: 'AUDIT_WITNESS_KEY' } },
          envFrom: [{ secretRef: { name: 'svc-eu-audit-extra' } }],
        },
      },
    }),
    'svc-eu',
    'svc-eu',
  );

  it('creates the CloudNativePG Cluster, lets the apps reach its pods, and migrates after install', () => {
    const [cluster] = ofKind(manifests, 'Cluster');
    expect(cluster).toMatchObject({
      apiVersion: 'postgresql.cnpg.io/v1',
      metadata: { name: 'svc-eu-postgres' },
      spec: { instances: 3, bootstrap: { initdb: { database: 'svc_eu', owner: 'svc' } } },
    });
    const infrastructure = ofKind(manifests, 'NetworkPolicy').find((policy) => policy.metadata.name === 'svc-eu-egress-infrastructure')!;
    expect(infrastructure.spec.egress[1].to).toEqual([
      { podSelector: { matchLabels: { 'cnpg.io/cluster': 'svc-eu-postgres' } } },
      { podSelector: { matchLabels: { 'cnpg.io/poolerName': 'svc-eu-postgres-pooler-rw' } } },
    ]);
    expect(ofKind(manifests, 'Job')[0]!.metadata.annotations?.['helm.sh/hook']).toBe('post-install,pre-upgrade');
  });

  it('puts a CloudNativePG Pooler (PgBouncer, transaction pooling) in front of the Cluster', () => {
    const [pooler] = ofKind(manifests, 'Pooler');
    expect(pooler).toMatchObject({
      apiVersion: 'postgresql.cnpg.io/v1',
      metadata: { name: 'svc-eu-postgres-pooler-rw' },
      spec: {
        cluster: { name: 'svc-eu-postgres' },
        instances: 2,
        type: 'rw',
        pgbouncer: { poolMode: 'transaction', parameters: { default_pool_size: '20', max_client_conn: '1000' } },
      },
    });
  });

  it('creates a ServiceMonitor selecting every Service', () => {
    const [monitor] = ofKind(manifests, 'ServiceMonitor');
    expect(monitor!.metadata.labels?.release).toBe('prometheus');
    expect(monitor!.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '30s', scrapeTimeout: '10s' }]);
    for (const service of ofKind(manifests, 'Service'))
      expect(matches(monitor!.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
  });

  it("sets one app's own variables and Secret references, and no other app's", () => {
    const container = (name: string): { env: Array<{ name: string; value?: string; valueFrom?: unknown }>; envFrom: unknown[] } =>
      ofKind(manifests, 'Deployment').find((deployment) => deployment.metadata.name === `svc-eu-${name}`)!.spec.template.spec.containers[0];
    const audit = container('audit-chain');
    expect(audit.env).toEqual(
      expect.arrayContaining([
        { name: 'AUDIT_WITNESS_URL', value: 'https://witness.example.net' },
        { name: 'AUDIT_CHECKPOINT_INTERVAL_SECONDS', value: '900' },
        { name: 'AUDIT_WITNESS_KEY', valueFrom: { secretKeyRef: { name: 'svc-eu-witness', key: 'AUDIT_WITNESS_KEY' } } },
      ]),
    );
    expect(audit.envFrom).toEqual([{ configMapRef: { name: 'svc-eu-env' } }, { secretRef: { name: 'svc-eu-audit-extra' } }]);
    expect(container('receipts').env.map((variable) => variable.name)).not.toContain('AUDIT_WITNESS_URL');
  });
});

describe('helm/svc without PgBouncer (postgres.pgbouncer.enabled false)', () => {
  it('connects every app straight to Postgres with the one database URL', () => {
    const manifests = render(regionValues('us', { postgres: { pgbouncer: { enabled: false } } }), 'svc-us', 'svc-us');
    expect(ofKind(manifests, 'Pooler')).toEqual([]);
    for (const deployment of ofKind(manifests, 'Deployment')) {
      const env = deployment.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: unknown }>;
      expect(env.find((e) => e.name === 'DATABASE_URL')?.valueFrom).toEqual({
        secretKeyRef: { name: 'svc-us-database', key: 'DATABASE_URL' },
      });
      expect(env.find((e) => e.name === 'DATABASE_DIRECT_URL')).toBeUndefined();
    }
  });
});

describe('helm/svc refuses to render', () => {
  it('without a region', () => {
    expect(() => render(helmMerge(regionValues('us'), { region: '' }))).toThrow(/region is required/);
  });

  it('without the place of Postgres for the network policy', () => {
    expect(() => render(helmMerge(regionValues('us'), { networkPolicy: { postgres: { to: [] } } }))).toThrow(
      /networkPolicy\.postgres\.to is required/,
    );
  });

  it('with PgBouncer on but no Secret holding its URL', () => {
    expect(() => render(helmMerge(regionValues('us'), { secrets: { pooledDatabaseUrl: { existingSecret: '' } } }))).toThrow(
      /secrets\.pooledDatabaseUrl\.existingSecret is required/,
    );
  });
});

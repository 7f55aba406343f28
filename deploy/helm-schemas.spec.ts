/**
 * Validates every manifest the chart renders, for each region and with its optional parts on,
 * against the Kubernetes API schemas (kubernetes-models, generated from the Kubernetes OpenAPI
 * document): types, required fields, enums and formats of each built-in kind by apiVersion/kind,
 * and, by type-checking each manifest against the kind's TypeScript type, fields no kind declares.
 * Custom resources (ServiceMonitor, CloudNativePG Cluster) have no schema there and are checked
 * structurally only. Limits: deploy/README.md.
 */
import { join } from 'node:path';
import { REGIONS, type Region } from '@svc/config';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import * as ts from 'typescript';
import { renderChart, regionValues, type Manifest } from './helm-chart';

interface Validating {
  validate(): void;
}

/** Built-in kinds by `apiVersion/kind`, each validated with its Kubernetes API schema. */
const BUILT_IN: Record<string, (manifest: Manifest) => Validating> = {
  'v1/ServiceAccount': (m) => new ServiceAccount(m as never),
  'v1/ConfigMap': (m) => new ConfigMap(m as never),
  'v1/Secret': (m) => new Secret(m as never),
  'v1/Service': (m) => new Service(m as never),
  'apps/v1/Deployment': (m) => new Deployment(m as never),
  'apps/v1/StatefulSet': (m) => new StatefulSet(m as never),
  'batch/v1/Job': (m) => new Job(m as never),
  'batch/v1/CronJob': (m) => new CronJob(m as never),
  'autoscaling/v2/HorizontalPodAutoscaler': (m) => new HorizontalPodAutoscaler(m as never),
  'networking.k8s.io/v1/Ingress': (m) => new Ingress(m as never),
  'networking.k8s.io/v1/NetworkPolicy': (m) => new NetworkPolicy(m as never),
  'policy/v1/PodDisruptionBudget': (m) => new PodDisruptionBudget(m as never),
  'rbac.authorization.k8s.io/v1/Role': (m) => new Role(m as never),
  'rbac.authorization.k8s.io/v1/RoleBinding': (m) => new RoleBinding(m as never),
};

/** Custom resources the chart may create, whose definitions are not part of Kubernetes. */
const CUSTOM = new Set(['monitoring.coreos.com/v1/ServiceMonitor', 'postgresql.cnpg.io/v1/Cluster', 'postgresql.cnpg.io/v1/Pooler']);

const typeOf = (manifest: Manifest): string => `${manifest.apiVersion}/${manifest.kind}`;

/** The schema violations of the built-in manifests, as `Kind/name: path message`. */
function violations(manifests: Manifest[]): string[] {
  const found: string[] = [];
  for (const manifest of manifests) {
    const build = BUILT_IN[typeOf(manifest)];
    if (!build) continue;
    try {
      build(manifest).validate();
    } catch (error) {
      found.push(`${manifest.kind}/${manifest.metadata.name}: ${(error as Error).message}`);
    }
  }
  return found;
}

/**
 * The fields no Kubernetes type declares (a misspelt `readinesProbe`), which the schemas above let
 * through: each manifest is type-checked as an object literal of kubernetes-models' TypeScript type
 * of its kind, whose excess-property check is what the API server's strict field validation does.
 */
function unknownFields(manifests: Manifest[]): string[] {
  const file = join(__dirname, 'rendered-manifests.generated.ts');
  const builtIn = manifests.filter((manifest) => BUILT_IN[typeOf(manifest)]);
  const types = [...new Set(builtIn.map(typeOf))];
  const alias = (type: string): string => `K${types.indexOf(type)}`;
  const lines = types.map((type) => {
    const kind = type.slice(type.lastIndexOf('/') + 1);
    return `import type { I${kind} as ${alias(type)} } from 'kubernetes-models/${type}';`;
  });
  const firstManifestLine = lines.length;
  builtIn.forEach((manifest, index) => lines.push(`export const m${index}: ${alias(typeOf(manifest))} = ${JSON.stringify(manifest)};`));
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line =
      diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : -1;
    const manifest = builtIn[line - firstManifestLine];
    return `${manifest ? `${manifest.kind}/${manifest.metadata.name}` : 'imports'}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
}

/** The chart with the ServiceMonitor, the CloudNativePG Cluster and one app's own variables on. */
const withOptionalParts = (region: Region): Manifest[] =>
  renderChart(
    regionValues(region, {
      serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
      postgres: { cloudNativePG: { enabled: true } },
      networkPolicy: { postgres: { to: [] } },
      services: {
        'audit-chain': {
          env: { AUDIT_WITNESS_URL: 'https://witness.example.net', AUDIT_CHECKPOINT_INTERVAL_SECONDS: 900 },
          secretEnv: { AUDIT_WITNESS_KEY: { secretName: `svc-${region}-witness`, key: 'AUDIT_WITNESS_KEY' } },
          envFrom: [{ secretRef: { name: `svc-${region}-audit-extra` } }],
        },
      },
    }),
    `svc-${region}`,
    `svc-${region}`,
  );

describe.each(REGIONS)('helm/svc manifests for %s against the Kubernetes API schemas', (region) => {
  const variants: Array<[string, Manifest[]]> = [
    ['default values', renderChart(regionValues(region), `svc-${region}`, `svc-${region}`)],
    ['optional parts on', withOptionalParts(region)],
  ];

  it.each(variants)('knows the kind of every manifest (%s)', (_variant, manifests) => {
    const unknown = manifests.map(typeOf).filter((type) => !BUILT_IN[type] && !CUSTOM.has(type));
    expect(unknown).toEqual([]);
  });

  it.each(variants)('validates every built-in kind with its schema (%s)', (_variant, manifests) => {
    const builtIn = manifests.filter((manifest) => BUILT_IN[typeOf(manifest)]);
    // 8 Deployments, 8 Services, 8 PodDisruptionBudgets, 10 NetworkPolicies, the Job, the ConfigMap, the Ingress.
    expect(builtIn).toHaveLength(37);
    expect(violations(builtIn)).toEqual([]);
  });

  it('declares no field that the Kubernetes types do not know (default values and optional parts on)', () => {
    expect(unknownFields(variants.flatMap(([, manifests]) => manifests))).toEqual([]);
  }, 60_000);

  it.each(variants)(
    'checks custom resources (ServiceMonitor, CloudNativePG Cluster) structurally only: apiVersion, kind, metadata.name, spec (%s)',
    (_variant, manifests) => {
      for (const manifest of manifests.filter((candidate) => CUSTOM.has(typeOf(candidate)))) {
        expect(manifest.apiVersion).toMatch(/^[a-z0-9.-]+\.[a-z]+\/v\d+(alpha\d+|beta\d+)?$/);
        expect(manifest.kind).toMatch(/^[A-Z][A-Za-z]+$/);
        expect(manifest.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
        expect(typeof manifest.spec).toBe('object');
      }
    },
  );
});

describe('the schema check of the rendered manifests', () => {
  it('reports a wrong type, a missing required field and a bad enum with their paths', () => {
    const [deployment] = renderChart(regionValues('us')).filter((manifest) => manifest.kind === 'Deployment');
    const broken = structuredClone(deployment!);
    broken.spec.replicas = 'two';
    delete broken.spec.template.spec.containers[0].name;
    broken.spec.strategy = { type: 'Sideways' };
    const [message] = violations([broken]);
    expect(message).toMatch(/spec\/replicas must be integer/);
    expect(message).toMatch(/containers\/0 must have required property name/);
    expect(message).toMatch(/strategy\/type must be equal to one of the allowed values/);
  });

  it('reports a misspelt field with the object it is in', () => {
    const [deployment] = renderChart(regionValues('us')).filter((manifest) => manifest.kind === 'Deployment');
    const broken = structuredClone(deployment!);
    broken.spec.template.spec.containers[0].readinesProbe = broken.spec.template.spec.containers[0].readinessProbe;
    expect(violations([broken])).toEqual([]);
    expect(unknownFields([broken])).toEqual([
      expect.stringMatching(/^Deployment\/svc-us-audit-chain: .*readinesProbe\W+ does not exist in type 'IContainer'/),
    ]);
  }, 60_000);
});

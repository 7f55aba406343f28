import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Linted {
  filePath: string;
  messages: Array<{ ruleId: string | null; severity: number; message: string }>;
}

const ROOT = join(__dirname, '..', '..');

/** Fixture files, linted where they would live: what each may import is decided by its project's tags. */
const FIXTURES = {
  testImportsTesting: {
    filePath: 'libs/feature/receipts/src/boundary-fixture.spec.ts',
    code: "import { http } from '@svc/testing';\nexport const used = http;\n",
  },
  productionImportsTesting: {
    filePath: 'libs/feature/receipts/src/boundary-fixture.ts',
    code: "import { http } from '@svc/testing';\nexport const used = http;\n",
  },
  testImportsInternals: {
    filePath: 'libs/feature/receipts/src/boundary-fixture.spec.ts',
    code: "import { RecordConsentBody } from '../../consent-records/src/records/records.dto';\nexport const used = RecordConsentBody;\n",
  },
  testImportsPublicEntry: {
    filePath: 'libs/feature/receipts/src/boundary-fixture.spec.ts',
    code: "import { CreateApplication } from '@svc/decision-gateway';\nexport const used = CreateApplication;\n",
  },
  benchmarkImportsInternals: {
    filePath: 'benchmarks/boundary-fixture.bench.ts',
    code: "import { canonicalEntry } from '../libs/feature/audit-chain/src/chain/audit-entry';\nexport const used = canonicalEntry;\n",
  },
  benchmarkImportsPublicEntry: {
    filePath: 'benchmarks/boundary-fixture.bench.ts',
    code: "import { canonicalEntry } from '@svc/audit-chain';\nexport const used = canonicalEntry;\n",
  },
  // platform-server depends on platform-auth: auth importing server closes a cycle.
  importCycle: {
    filePath: 'libs/platform/auth/src/boundary-fixture.ts',
    code: "import { startProcess } from '@svc/server';\nexport const used = startProcess;\n",
  },
  pureImportsInfrastructure: {
    filePath: 'libs/platform/merkle/src/boundary-fixture.ts',
    code: "import { guardedAgent } from '@svc/egress';\nexport const used = guardedAgent;\n",
  },
  sdkImportsInternal: {
    filePath: 'libs/sdk/webhooks/src/boundary-fixture.ts',
    code: "import { defineErrors } from '@svc/errors';\nexport const used = defineErrors;\n",
  },
  fileCycle: {
    filePath: 'tools/lint/fixtures/cycle/first.ts',
    code: readFileSync(join(ROOT, 'tools/lint/fixtures/cycle/first.ts'), 'utf8'),
  },
  featureImportsFeature: {
    filePath: 'libs/feature/receipts/src/boundary-fixture.ts',
    code: "import { CreateApplication } from '@svc/decision-gateway';\nexport const used = CreateApplication;\n",
  },
} as const;

type Fixture = keyof typeof FIXTURES;

describe('module boundaries in lint (the repository ESLint configuration on fixture files)', () => {
  // ESLint runs in a child process: its flat config is an ES module, which jest's CommonJS runtime does not load.
  jest.setTimeout(120_000);
  let linted: Record<Fixture, string[]>;

  beforeAll(() => {
    const names = Object.keys(FIXTURES) as Fixture[];
    const output = execFileSync(process.execPath, [join(ROOT, 'tools', 'lint', 'lint-boundaries.mjs')], {
      cwd: ROOT,
      input: JSON.stringify(names.map((name) => FIXTURES[name])),
      env: { ...process.env, NX_DAEMON: 'false' },
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // The graph step may print before the JSON line.
    const results = JSON.parse(output.slice(output.indexOf('[{'))) as Linted[];
    linted = Object.fromEntries(
      names.map((name, index) => [name, (results[index]?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`)]),
    ) as Record<Fixture, string[]>;
  });

  it('lets a test use @svc/testing, and another feature through its public entry point', () => {
    expect(linted.testImportsTesting).toEqual([]);
    expect(linted.testImportsPublicEntry).toEqual([]);
  });

  it('fails production code that uses @svc/testing', () => {
    expect(linted.productionImportsTesting.join('\n')).toMatch(
      /enforce-module-boundaries: A project tagged with "type:feature" can only depend on/,
    );
  });

  it("fails a test that imports another library's internals", () => {
    expect(linted.testImportsInternals.join('\n')).toMatch(
      /enforce-module-boundaries: Projects cannot be imported by a relative or absolute path/,
    );
  });

  it("fails a benchmark that imports a library's internals, and passes one on its public entry point", () => {
    expect(linted.benchmarkImportsInternals.join('\n')).toMatch(
      /enforce-module-boundaries: Projects cannot be imported by a relative or absolute path/,
    );
    expect(linted.benchmarkImportsPublicEntry).toEqual([]);
  });

  it('fails an import that closes a cycle between projects', () => {
    expect(linted.importCycle.join('\n')).toMatch(
      /enforce-module-boundaries: Circular dependency between "platform-auth" and "platform-server" detected/,
    );
  });

  it('fails an import that closes a cycle between files, type-only imports included', () => {
    expect(linted.fileCycle).toEqual([
      'local/no-import-cycle: Import cycle: tools/lint/fixtures/cycle/first.ts -> tools/lint/fixtures/cycle/second.ts -> tools/lint/fixtures/cycle/first.ts',
    ]);
  });

  it('fails pure platform code that uses infrastructure, an SDK that uses internal code, and a feature that uses another', () => {
    expect(linted.pureImportsInfrastructure.join('\n')).toMatch(/"layer:pure" can only depend on libs tagged with "layer:pure"/);
    expect(linted.sdkImportsInternal.join('\n')).toMatch(/"type:sdk" can only depend on libs tagged with "sdk:embeddable"/);
    expect(linted.featureImportsFeature.join('\n')).toMatch(/"type:feature" can only depend on/);
  });
});

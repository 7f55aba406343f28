import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-plugin-prettier/recommended';
import local from './tools/lint/no-import-cycle.mjs';

/*
 * Module boundaries (Nx tags in each project.json), enforced on production code, tests and
 * benchmarks alike, plus Nx's check that no import closes a cycle between projects.
 *
 * type:   what a project is, and which kinds it may use.
 * layer:  inside the platform, pure code (no I/O) < infrastructure (database, bus, HTTP out,
 *         telemetry) < runtime (the Nest process, auth); a layer uses only its own and lower ones.
 * scope:  a service's projects use only their own scope and shared code.
 */
const TYPES = {
  'type:app': ['type:composition', 'type:feature', 'type:util', 'type:contracts', 'type:sdk'],
  'type:composition': ['type:feature', 'type:util', 'type:contracts', 'type:sdk'],
  'type:feature': ['type:util', 'type:contracts', 'type:sdk'],
  'type:util': ['type:util', 'type:contracts'],
  'type:contracts': [],
  'type:testing': ['type:util', 'type:contracts'],
  // SDKs are published packages: they use nothing internal but what is compiled into them.
  'type:sdk': ['sdk:embeddable'],
  // Benchmarks and the cross-service end-to-end suite drive whole processes through public entry points.
  'type:benchmark': ['type:composition', 'type:feature', 'type:util', 'type:contracts', 'type:sdk', 'type:testing'],
  'type:e2e': ['type:composition', 'type:feature', 'type:util', 'type:contracts', 'type:sdk', 'type:testing'],
};
const LAYERS = {
  'layer:pure': ['layer:pure'],
  'layer:infrastructure': ['layer:pure', 'layer:infrastructure'],
  'layer:runtime': ['layer:pure', 'layer:infrastructure', 'layer:runtime'],
};
const SERVICES = [
  'decision-gateway',
  'consent-records',
  'oap-authorizer',
  'oversight-witness',
  'receipts',
  'webhook-dispatcher',
  'audit-chain',
  'residency-router',
];
const SCOPES = {
  'scope:shared': ['scope:shared'],
  ...Object.fromEntries(SERVICES.map((service) => [`scope:${service}`, [`scope:${service}`, 'scope:shared']])),
  'scope:stack': ['scope:shared', ...SERVICES.map((service) => `scope:${service}`), 'scope:stack'],
};

/** Test files and their support code. */
export const TEST_FILES = [
  '**/*.spec.ts',
  '**/*.integration-spec.ts',
  '**/*.e2e-spec.ts',
  '**/test/**/*.ts',
  'libs/platform/testing/**/*.ts',
];

/**
 * Tests hold to their project's boundaries, plus: every test may use @svc/testing, and a feature's
 * tests may boot other features beside it through their public entry points (never their
 * internals: a relative or deep import into another project is refused everywhere).
 */
function boundaries({ tests }) {
  const constraint = (sourceTag, allowed) => ({
    sourceTag,
    onlyDependOnLibsWithTags: tests ? [...new Set([...allowed, 'type:testing'])] : allowed,
  });
  const types = Object.entries(TYPES).map(([tag, allowed]) =>
    constraint(tag, tests && ['type:app', 'type:composition', 'type:feature'].includes(tag) ? [...allowed, 'type:feature'] : allowed),
  );
  const layers = Object.entries(LAYERS).map(([tag, allowed]) => constraint(tag, allowed));
  const scopes = tests ? [] : Object.entries(SCOPES).map(([tag, allowed]) => constraint(tag, allowed));
  return ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints: [...types, ...layers, ...scopes] }];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.nx/**',
      'libs/platform/contracts/src/gen/**',
      'coverage/**',
      'test-output/**',
      'tools/lint/fixtures/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx, local },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@nx/enforce-module-boundaries': boundaries({ tests: false }),
      'local/no-import-cycle': 'error',
    },
  },
  // Formatting is Prettier's (.prettierrc.json); lint fails on a file it would change.
  prettier,
  {
    files: TEST_FILES,
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ tests: true }),
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);

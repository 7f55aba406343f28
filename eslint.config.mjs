import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.nx/**', 'libs/platform/contracts/src/gen/**', 'coverage/**', 'test-output/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:composition', 'type:feature', 'type:util', 'type:contracts'] },
            { sourceTag: 'type:composition', onlyDependOnLibsWithTags: ['type:feature', 'type:util', 'type:contracts'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:decision-gateway', onlyDependOnLibsWithTags: ['scope:decision-gateway', 'scope:shared'] },
            { sourceTag: 'scope:consent-records', onlyDependOnLibsWithTags: ['scope:consent-records', 'scope:shared'] },
            { sourceTag: 'scope:oap-authorizer', onlyDependOnLibsWithTags: ['scope:oap-authorizer', 'scope:shared'] },
            { sourceTag: 'scope:oversight-witness', onlyDependOnLibsWithTags: ['scope:oversight-witness', 'scope:shared'] },
            { sourceTag: 'scope:receipts', onlyDependOnLibsWithTags: ['scope:receipts', 'scope:shared'] },
            { sourceTag: 'scope:webhook-dispatcher', onlyDependOnLibsWithTags: ['scope:webhook-dispatcher', 'scope:shared'] },
            { sourceTag: 'scope:audit-chain', onlyDependOnLibsWithTags: ['scope:audit-chain', 'scope:shared'] },
            { sourceTag: 'scope:residency-router', onlyDependOnLibsWithTags: ['scope:residency-router', 'scope:shared'] },
            {
              sourceTag: 'scope:stack',
              onlyDependOnLibsWithTags: [
                'scope:shared', 'scope:decision-gateway', 'scope:consent-records', 'scope:oap-authorizer',
                'scope:oversight-witness', 'scope:receipts', 'scope:webhook-dispatcher', 'scope:audit-chain',
                'scope:residency-router', 'scope:stack',
              ],
            },
          ],
        },
      ],
    },
  },
  {
    // Tests may use the testing library and any library of their own scope.
    files: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts', 'libs/platform/testing/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);

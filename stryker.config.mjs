// Mutation testing of the code that decides, signs and proves: `npm run test:mutation`.
// Not part of `npm test`. One file at a time: `npm run test:mutation -- --mutate <file>`.
// Equivalent mutants are disabled where they occur, with a `// Stryker disable next-line … : reason` comment.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'stryker.jest.config.js', enableFindRelatedTests: false },
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // Only what the sandbox needs to run the unit specs.
  ignorePatterns: ['/apps', '/benchmarks', '/deploy', '/helm', '/proto', '/test', '/reports', '/dist', '/coverage', '/.nx'],
  concurrency: 1,
  timeoutMS: 10000,
  thresholds: { high: 90, low: 80, break: 90 },
  mutate: [
    'libs/feature/oap-authorizer/src/grants/checks/cascade.ts',
    'libs/feature/oap-authorizer/src/grants/checks/cascade-step.ts',
    'libs/feature/oap-authorizer/src/grants/checks/delegation-chain.ts',
    'libs/feature/oap-authorizer/src/grants/checks/step-*.ts',
    '!libs/feature/oap-authorizer/src/grants/checks/*.spec.ts',
    'libs/feature/oap-authorizer/src/authorities/bounds.ts',
    'libs/feature/oap-authorizer/src/grants/dpop.ts',
    'libs/feature/receipts/src/verification/verify-signed-receipt.ts',
    'libs/sdk/receipts-verify/src/verify-receipt.ts',
    'libs/feature/receipts/src/record/build-*.ts',
    'libs/feature/receipts/src/record/notice-hash.ts',
    '!libs/feature/receipts/src/record/*.spec.ts',
    'libs/feature/webhook-dispatcher/src/deliveries/retry-schedule.ts',
    'libs/feature/webhook-dispatcher/src/deliveries/signature.ts',
    'libs/platform/merkle/src/merkle.ts',
  ],
};

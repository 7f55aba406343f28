// The unit project of jest.config.js, limited to the unit specs of the mutation-tested files.
// The OpenAPI drift spec is left out on purpose: it loads the whole application, so it is "related"
// to every file, yet it only compares the generated document and cannot kill a mutant; it would add
// seconds to every mutant whose code runs at module load.
const unit = require('./jest.config.js').projects.find((project) => project.displayName === 'unit');

const MUTATION_SPECS = [
  'libs/feature/oap-authorizer/src/grants/checks/*.spec.ts',
  'libs/feature/oap-authorizer/src/grants/dpop.spec.ts',
  'libs/feature/oap-authorizer/src/authorities/bounds.spec.ts',
  'libs/feature/receipts/src/record/*.spec.ts',
  'libs/feature/receipts/src/verification/*.spec.ts',
  'libs/sdk/receipts-verify/src/*.spec.ts',
  'libs/feature/webhook-dispatcher/src/deliveries/retry-schedule.spec.ts',
  'libs/feature/webhook-dispatcher/src/deliveries/signature.spec.ts',
  'libs/platform/merkle/src/merkle*.spec.ts',
  'libs/platform/merkle/src/transparency-dev-vectors.spec.ts',
];

// STRYKER_SPECS (comma-separated globs) narrows a run on one file to that file's specs; static
// mutants run every spec of the config, so a narrow list keeps such a run short.
const specs = process.env.STRYKER_SPECS ? process.env.STRYKER_SPECS.split(',') : MUTATION_SPECS;

module.exports = {
  ...unit,
  displayName: 'mutation',
  testMatch: specs.map((glob) => `<rootDir>/${glob.trim()}`),
  testPathIgnorePatterns: [...unit.testPathIgnorePatterns, '<rootDir>/.stryker-tmp/', '<rootDir>/reports/'],
};

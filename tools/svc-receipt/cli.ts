#!/usr/bin/env node
/**
 * Offline verifier of signed svc-cr/2.13 receipts.
 *
 *   npx svc-receipt verify <receipt.json> --jwks <jwks.json>    (svc-receipt --help for the usage)
 *   npx svc-receipt verify-agreement <agreement-receipt.json> --jwks <jwks.json> [--jwks …] [--document <file>]
 *
 * One JSON object on stdout; messages on stderr. Exit 0: valid. Non-zero names the failure: 1 bad_signature, 2 usage, 3 not_a_receipt,
 * 4 schema_invalid, 5 unknown_kid, 6 jwks_invalid, 7 not_canonical, 8 inconsistent, 9 document_mismatch, 70 internal error.
 */
import { runCli } from './run-verify';

runCli(process.argv.slice(2)).then(
  (outcome) => {
    if (outcome.stdout) process.stdout.write(`${outcome.stdout}\n`);
    if (outcome.stderr) process.stderr.write(`${outcome.stderr}\n`);
    process.exit(outcome.code);
  },
  (error: unknown) => {
    process.stderr.write(`svc-receipt failed: ${error instanceof Error ? error.message : String(error)}\n`);
    // 70 (EX_SOFTWARE): a crash must not look like any verification outcome.
    process.exit(70);
  },
);

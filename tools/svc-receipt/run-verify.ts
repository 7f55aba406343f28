import { readFile } from 'node:fs/promises';
import { verifySignedReceipt, type ReceiptVerificationFailure } from '@svc/receipts';

/** Exit status per outcome: scripts can tell failures apart without parsing text. */
export const EXIT_CODES: Record<'ok' | 'usage' | ReceiptVerificationFailure, number> = {
  ok: 0,
  bad_signature: 1,
  usage: 2,
  not_a_receipt: 3,
  schema_invalid: 4,
  unknown_kid: 5,
  jwks_invalid: 6,
};

export const USAGE = 'usage: svc-receipt verify <receipt.json> --jwks <jwks.json>';

/** One line for the person at the terminal and the exit status; never throws for bad input. */
export interface CliOutcome {
  code: number;
  stdout?: string;
  stderr?: string;
}

/**
 * `svc-receipt verify <receipt.json> --jwks <jwks.json>`: verifies a signed-flavor receipt
 * offline against a saved `/.well-known/jwks.json`. Prints `valid <record_id> (kid <kid>)` and
 * exits 0, or prints `invalid: <failure>: <why>` and exits with {@link EXIT_CODES}.
 */
export async function runCli(argv: readonly string[]): Promise<CliOutcome> {
  const [command, ...rest] = argv;
  if (command !== 'verify') return { code: EXIT_CODES.usage, stderr: USAGE };
  let receiptPath: string | undefined;
  let jwksPath: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i];
    if (arg === '--jwks') {
      jwksPath = rest[i + 1];
      i += 1;
    } else if (arg !== undefined && !arg.startsWith('--') && receiptPath === undefined) {
      receiptPath = arg;
    } else {
      return { code: EXIT_CODES.usage, stderr: USAGE };
    }
  }
  if (!receiptPath || !jwksPath) return { code: EXIT_CODES.usage, stderr: USAGE };
  let receiptText: string;
  let jwksText: string;
  try {
    [receiptText, jwksText] = await Promise.all([readFile(receiptPath, 'utf8'), readFile(jwksPath, 'utf8')]);
  } catch (error) {
    return { code: EXIT_CODES.usage, stderr: `cannot read input: ${error instanceof Error ? error.message : String(error)}` };
  }
  const result = await verifySignedReceipt(receiptText, jwksText);
  if (result.ok) return { code: EXIT_CODES.ok, stdout: `valid ${result.recordType} ${result.recordId} (kid ${result.kid})` };
  return { code: EXIT_CODES[result.failure], stderr: `invalid: ${result.failure}: ${result.message}` };
}

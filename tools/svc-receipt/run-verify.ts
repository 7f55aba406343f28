import { readFile } from 'node:fs/promises';
import type { AgreementReceiptFailure, ReceiptVerificationFailure } from '@svc/receipts';

/** Exit status per outcome: scripts can tell failures apart without parsing text. */
export const EXIT_CODES: Record<'ok' | 'usage' | ReceiptVerificationFailure | AgreementReceiptFailure, number> = {
  ok: 0,
  bad_signature: 1,
  usage: 2,
  not_a_receipt: 3,
  schema_invalid: 4,
  unknown_kid: 5,
  jwks_invalid: 6,
  not_canonical: 7,
  inconsistent: 8,
  document_mismatch: 9,
  bad_passkey_assertion: 10,
};

export const USAGE =
  'usage: svc-receipt verify <receipt.json> --jwks <jwks.json>\n       svc-receipt verify-agreement <agreement-receipt.json> --jwks <jwks.json> [--jwks <jwks.json>…] [--document <file>]';

/** The `--help` text: the usage, the output and the exit codes. */
export const HELP = `${USAGE}

Verifies a signed receipt (GET /api/v1/consent_receipts/{id}?flavor=signed) offline against a saved
/.well-known/jwks.json. Prints one JSON object on stdout, {"valid":true,...} or {"valid":false,...};
the reason of a failure also goes to stderr.

verify-agreement verifies an agreement's receipt (GET /api/v1/agreements/{id}/receipt): the set of
its parties' signatures, each against the JWKS of the region where the party signed (give one
--jwks per region), the exact canonical bytes (any changed byte fails), that every signature names
the agreement, its document digest and quorum, and that the status agrees with the signatures;
each amendment replaces the document in force and is adopted only by the quorum of its own votes;
a signature that binds the signer's passkey assertion must carry one that verifies (its challenge
is this signature, from the issuer's origin and relying party, signed by the bound credential key);
with --document, that the document has the signed digest or that of the adopted amendment in force.

Exit codes: 0 valid, 1 bad_signature, 2 usage, 3 not_a_receipt, 4 schema_invalid, 5 unknown_kid,
6 jwks_invalid, 7 not_canonical, 8 inconsistent, 9 document_mismatch, 10 bad_passkey_assertion,
70 internal error.`;

const HELP_ARGUMENTS = new Set(['--help', '-h', 'help']);

/** What to print and the exit status; never throws for bad input. */
export interface CliOutcome {
  code: number;
  stdout?: string;
  stderr?: string;
}

/**
 * `svc-receipt verify <receipt.json> --jwks <jwks.json>`: verifies a signed-flavor receipt
 * offline against a saved `/.well-known/jwks.json`. Prints `{"valid":true,"record_type",
 * "record_id","kid"}` and exits 0, or prints `{"valid":false,"failure","message"}` (and the
 * failure on stderr) and exits with {@link EXIT_CODES}.
 */
export async function runCli(argv: readonly string[]): Promise<CliOutcome> {
  if (argv.some((arg) => HELP_ARGUMENTS.has(arg))) return { code: EXIT_CODES.ok, stdout: HELP };
  const [command, ...rest] = argv;
  if (command === 'verify-agreement') return runVerifyAgreement(rest);
  if (command !== 'verify') return { code: EXIT_CODES.usage, stderr: USAGE };
  let receiptPath: string | undefined;
  let jwksPath: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i];
    if (arg === '--jwks') {
      jwksPath = rest[i + 1];
      i += 1;
    } else if (arg !== undefined && !arg.startsWith('-') && receiptPath === undefined) {
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
  // Loaded once the arguments are understood: --help and usage errors answer without it.
  const { verifySignedReceipt } = await import('@svc/receipts');
  const result = await verifySignedReceipt(receiptText, jwksText);
  if (result.ok)
    return {
      code: EXIT_CODES.ok,
      stdout: JSON.stringify({ valid: true, record_type: result.recordType, record_id: result.recordId, kid: result.kid }),
    };
  return {
    code: EXIT_CODES[result.failure],
    stdout: JSON.stringify({ valid: false, failure: result.failure, message: result.message }),
    stderr: `invalid: ${result.failure}: ${result.message}`,
  };
}

/**
 * `svc-receipt verify-agreement <receipt.json> --jwks <jwks.json> [--jwks …] [--document <file>]`:
 * prints `{"valid":true,"agreement_id","status","signed","required","answers","kids","passkeys","amendments","document_sha256"}` (the document in force) and exits
 * 0, or `{"valid":false,"failure","message"}` with {@link EXIT_CODES}.
 */
async function runVerifyAgreement(args: readonly string[]): Promise<CliOutcome> {
  let receiptPath: string | undefined;
  let documentPath: string | undefined;
  const jwksPaths: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === '--jwks' || arg === '--document') {
      if (value === undefined) return { code: EXIT_CODES.usage, stderr: USAGE };
      if (arg === '--jwks') jwksPaths.push(value);
      else if (documentPath === undefined) documentPath = value;
      else return { code: EXIT_CODES.usage, stderr: USAGE };
      i += 1;
    } else if (arg !== undefined && !arg.startsWith('-') && receiptPath === undefined) {
      receiptPath = arg;
    } else {
      return { code: EXIT_CODES.usage, stderr: USAGE };
    }
  }
  if (!receiptPath || jwksPaths.length === 0) return { code: EXIT_CODES.usage, stderr: USAGE };
  let receiptText: string;
  let jwksTexts: string[];
  let document: Buffer | undefined;
  try {
    [receiptText, jwksTexts, document] = await Promise.all([
      readFile(receiptPath, 'utf8'),
      Promise.all(jwksPaths.map((path) => readFile(path, 'utf8'))),
      documentPath === undefined ? Promise.resolve(undefined) : readFile(documentPath),
    ]);
  } catch (error) {
    return { code: EXIT_CODES.usage, stderr: `cannot read input: ${error instanceof Error ? error.message : String(error)}` };
  }
  const { verifyAgreementReceipt } = await import('@svc/receipts');
  const result = await verifyAgreementReceipt(receiptText, jwksTexts, document);
  if (result.ok) {
    return {
      code: EXIT_CODES.ok,
      stdout: JSON.stringify({
        valid: true,
        agreement_id: result.agreementId,
        status: result.status,
        signed: result.signed,
        required: result.required,
        answers: result.answers,
        kids: result.kids,
        passkeys: result.passkeys,
        amendments: result.amendments,
        document_sha256: result.documentSha256,
      }),
    };
  }
  return {
    code: EXIT_CODES[result.failure],
    stdout: JSON.stringify({ valid: false, failure: result.failure, message: result.message }),
    stderr: `invalid: ${result.failure}: ${result.message}`,
  };
}

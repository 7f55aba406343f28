import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceiptDocument } from '@svc/receipts';
import { EXIT_CODES, HELP, USAGE, runCli } from './run-verify';

/** Issue 7: `svc-receipt verify <receipt.json> --jwks <jwks.json>` exits 0 when valid, non-zero naming the failure. */
describe('svc-receipt verify', () => {
  let dir: string;
  let receiptPath: string;
  let jwksPath: string;
  let document: ReceiptDocument;
  let signedText: string;
  let jwks: { keys: Array<Record<string, string>> };
  let otherJwks: { keys: Array<Record<string, string>> };

  beforeAll(async () => {
    // Loaded as the CLI loads receipts: lazily.
    const { buildReceipt, signReceipt } = await import('@svc/receipts');
    const { consentInput, testSigningKey } = await import('@svc/receipts/testing');
    dir = mkdtempSync(join(tmpdir(), 'svc-receipt-cli-'));
    receiptPath = join(dir, 'receipt.json');
    jwksPath = join(dir, 'jwks.json');
    const signing = testSigningKey('oap-eu-v3');
    jwks = signing.jwks;
    otherJwks = testSigningKey('oap-eu-v9').jwks;
    document = buildReceipt(consentInput());
    signedText = JSON.stringify(await signReceipt(document, signing.key, 'https://eu.example/.well-known/jwks.json'), null, 2);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const verify = async (receipt: string, keys: unknown = jwks) => {
    writeFileSync(receiptPath, receipt);
    writeFileSync(jwksPath, typeof keys === 'string' ? keys : JSON.stringify(keys));
    return runCli(['verify', receiptPath, '--jwks', jwksPath]);
  };

  it('exits 0 for a valid signed receipt, printing one JSON object', async () => {
    const outcome = await verify(signedText);
    expect(outcome).toEqual({ code: 0, stdout: expect.any(String) });
    expect(JSON.parse(outcome.stdout ?? '')).toEqual({
      valid: true,
      record_type: 'consent_record',
      record_id: document.record.record_id,
      kid: 'oap-eu-v3',
    });
  });

  it.each([[['--help']], [['verify', '--help']], [['-h']]])('prints the help on stdout and exits 0 for %j', async (argv) => {
    await expect(runCli(argv)).resolves.toEqual({ code: EXIT_CODES.ok, stdout: HELP });
  });

  it('accepts the flags in either order', async () => {
    await verify(signedText);
    await expect(runCli(['verify', '--jwks', jwksPath, receiptPath])).resolves.toMatchObject({ code: 0 });
  });

  it.each([
    [
      'bad signature (one flipped byte)',
      () => verify(signedText.replace('"Marketing emails"', '"Marketing emailz"')),
      EXIT_CODES.bad_signature,
      'invalid: bad_signature',
    ],
    ['unknown kid', () => verify(signedText, otherJwks), EXIT_CODES.unknown_kid, 'invalid: unknown_kid'],
    ['not a receipt', () => verify('{"hello":"world"}'), EXIT_CODES.not_a_receipt, 'invalid: not_a_receipt'],
    [
      'schema invalid',
      () => verify(signedText.replace('"ISO/IEC TS 27560:2023"', '"ISO/IEC 27001"')),
      EXIT_CODES.schema_invalid,
      'invalid: schema_invalid',
    ],
    ['a JWKS that is not one', () => verify(signedText, '"nope"'), EXIT_CODES.jwks_invalid, 'invalid: jwks_invalid'],
  ])('exits non-zero naming the failure: %s', async (_name, run, code, message) => {
    const outcome = await run();
    expect(outcome.code).toBe(code);
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toContain(message);
    expect(JSON.parse(outcome.stdout ?? '')).toMatchObject({ valid: false, failure: message.replace('invalid: ', '') });
  });

  it.each([
    [[]],
    [['check', 'a.json']],
    [['verify', 'a.json']],
    [['verify', 'a.json', '--jwks']],
    [['verify', 'a.json', 'b.json', '--jwks', 'c.json']],
  ])('prints the usage and exits 2 for %j', async (argv) => {
    await expect(runCli(argv)).resolves.toEqual({ code: EXIT_CODES.usage, stderr: USAGE });
  });

  it('exits 2 when a file cannot be read', async () => {
    await expect(runCli(['verify', join(dir, 'missing.json'), '--jwks', jwksPath])).resolves.toMatchObject({
      code: EXIT_CODES.usage,
      stderr: expect.stringContaining('cannot read input'),
    });
  });
});

import { execFileSync } from 'node:child_process';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GENESIS_PREVIOUS_HASH,
  chainHash,
  ed25519PublicKeyRaw,
  formatCheckpoint,
  inclusionProof,
  merkleRoot,
  signNote,
  verifierKeyString,
} from '@svc/merkle';

const ROOT = join(__dirname, '..', '..');
// Three tsc builds, three `npm pack`, one offline `npm install`: slow on a loaded machine.
jest.setTimeout(180_000);

interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
  files: string[];
}

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, 'libs/sdk', dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    types: string;
    exports: { '.': { types: string; default: string } };
  };

/** Issue 19 item 2: each libs/sdk package builds, packs, installs from its tarball and imports in plain Node. */
describe('SDK packages (npm pack)', () => {
  let out: string;
  let summary: { consumer: string; packages: PackedPackage[] };

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'svc-sdk-pack-test-'));
    summary = JSON.parse(
      execFileSync(process.execPath, ['scripts/pack-sdk.js', '--out', out], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it.each(['browser', 'webhooks', 'receipts-verify', 'audit-verify'])(
    '%s: the tarball holds the entry, its type declarations and the README, versioned with the API',
    (dir) => {
      const { name, version, types, exports } = manifest(dir);
      const packed = summary.packages.find((p) => p.name === name);
      const apiVersion = (
        JSON.parse(readFileSync(join(ROOT, 'libs/feature/decision-gateway/src/discovery/openapi.json'), 'utf8')) as {
          info: { version: string };
        }
      ).info.version;
      expect(name).toBe(`@svc-sdk/${dir}`);
      expect(version).toBe(apiVersion);
      expect(packed).toMatchObject({ version });
      expect(types).toBe(exports['.'].types);
      expect(packed?.files).toEqual(
        expect.arrayContaining(['package.json', 'README.md', exports['.'].default.slice(2), exports['.'].types.slice(2)]),
      );
      expect(packed?.files.filter((file) => /\.(ts|mts)$/.test(file) && !/\.d\.m?ts$/.test(file))).toEqual([]);
    },
  );

  /** An inclusion proof as GET /api/v1/audit/entries/{id}/inclusion_proof serves it, and the region's verifier key. */
  function auditProof(): { proof: unknown; verifierKey: string } {
    const origin = 'us.svc.example/audit';
    const { privateKey } = generateKeyPairSync('ed25519');
    const canonical = ['{"n":0}', '{"n":1}', '{"n":2}'];
    const hashes: string[] = [];
    canonical.forEach((text, index) => hashes.push(chainHash(index === 0 ? GENESIS_PREVIOUS_HASH : hashes[index - 1]!, text)));
    const leaves = hashes.map((hash) => new Uint8Array(Buffer.from(hash, 'hex')));
    const rootHash = merkleRoot(leaves);
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    return {
      verifierKey: verifierKeyString(origin, ed25519PublicKeyRaw(privateKey)),
      proof: {
        entry: { id: 'audit_rec_1', index: 1, previous_hash: hashes[0], hash: hashes[1], canonical: canonical[1] },
        leaf_index: 1,
        tree_size: 3,
        proof: inclusionProof(1, leaves).map(b64),
        checkpoint: {
          sequence: 1,
          tree_size: 3,
          root_hash: b64(rootHash),
          signed_note: signNote(formatCheckpoint({ origin, size: 3, rootHash }), { name: origin, privateKey }),
        },
      },
    };
  }

  it('the installed packages work from a plain Node ES module with no DOM', () => {
    const audit = auditProof();
    const secret = 'whsec_smoke';
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const body = '{"event":"consent.granted","id":"evt_1"}';
    const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    const script = `
      import { verifyWebhook } from '@svc-sdk/webhooks';
      import { verifyReceipt } from '@svc-sdk/receipts-verify';
      import { isSvcEnvelope, SvcDecisionElement } from '@svc-sdk/browser';
      import { verifyInclusionProof } from '@svc-sdk/audit-verify';
      const inclusion = verifyInclusionProof(${JSON.stringify(audit.proof)}, { verifierKey: ${JSON.stringify(audit.verifierKey)} });
      const webhook = verifyWebhook({ rawBody: ${JSON.stringify(body)}, secrets: [${JSON.stringify(secret)}],
        headers: { 'x-svc-signature': 'v1=${signature}', 'x-svc-timestamp': '${timestamp}', 'x-svc-event-id': 'evt_1' } });
      const unsigned = Buffer.from('{"alg":"none","typ":"oap+jwt","kid":"k"}').toString('base64url') + '.e30.AA';
      const receipt = await verifyReceipt(unsigned, { keys: { keys: [] } }).catch((error) => error.code);
      console.log(JSON.stringify({ event: webhook.eventId, receipt, included: inclusion.index, envelope: isSvcEnvelope({}), element: typeof SvcDecisionElement, window: typeof window }));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: summary.consumer, encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({
      event: 'evt_1',
      receipt: 'algorithm_not_allowed',
      included: 1,
      envelope: false,
      element: 'function',
      window: 'undefined',
    });
  });
});

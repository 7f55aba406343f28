import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  SIGNATURE_LINE_PREFIX,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  cosignNote,
  ed25519PublicKeyRaw,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  verifierKeyString,
  verifyConsistency,
} from '@svc/merkle';

/** A C2SP tlog-witness on loopback for tests: checks the log signature and the consistency proof, then cosigns. */
export interface LoopbackWitness {
  readonly url: string;
  readonly name: string;
  /** cosignature/v1 verifier key (what AUDIT_WITNESS_KEY holds). */
  readonly verifierKey: string;
  /** Latest cosigned size per origin. */
  readonly state: Map<string, { size: number; root: Uint8Array }>;
  /** Status of every answered request, in order. */
  readonly answers: number[];
  /** `old` and checkpoint size of every request it cosigned, in order. */
  readonly cosigned: Array<{ oldSize: number; size: number }>;
  /** Answers the next requests with these (status, body, content type) instead of handling them. */
  readonly scripted: Array<{ status: number; text: string; type?: string }>;
  /** While true, every connection is dropped without an answer (the witness is down). */
  offline: boolean;
  /** Forgets a log key (requests for its origin then get 404). */
  untrust(origin: string): void;
  /** Trusts a log key (its vkey) for its origin. */
  trust(logVerifierKey: string): void;
  close(): Promise<void>;
}

/** Starts a witness named `name` on a free loopback port; `now()` gives cosignature time (ms). */
export async function startLoopbackWitness(name = 'witness.test/w1', now: () => number = () => Date.now()): Promise<LoopbackWitness> {
  const { privateKey } = generateKeyPairSync('ed25519') as { privateKey: KeyObject };
  const trusted = new Map<string, string>();
  const state = new Map<string, { size: number; root: Uint8Array }>();
  const answers: number[] = [];
  const cosignedLog: Array<{ oldSize: number; size: number }> = [];
  const scripted: Array<{ status: number; text: string; type?: string }> = [];
  const control = { offline: false };

  const handle = (body: string): { status: number; type?: string; text: string } => {
    const split = body.indexOf('\n\n');
    if (split < 0) return { status: 400, text: 'malformed\n' };
    const [oldLine, ...proofLines] = body.slice(0, split).split('\n');
    const note = body.slice(split + 2);
    const oldMatch = /^old (0|[1-9][0-9]*)$/.exec(oldLine ?? '');
    if (!oldMatch) return { status: 400, text: 'bad old size\n' };
    const oldSize = Number(oldMatch[1]);
    const proof = proofLines.map((line) => Buffer.from(line, 'base64'));
    if (proof.some((hash) => hash.length !== 32) || proof.length > 63) return { status: 400, text: 'bad proof line\n' };
    let origin: string;
    try {
      origin = parseCheckpoint(parseNote(note).body).origin;
    } catch {
      return { status: 400, text: 'bad checkpoint\n' };
    }
    const vkey = trusted.get(origin);
    if (!vkey) return { status: 404, text: 'unknown log\n' };
    let checkpoint;
    try {
      checkpoint = openCheckpoint(note, [parseVerifierKey(vkey)]).checkpoint;
    } catch {
      return { status: 403, text: 'no valid log signature\n' };
    }
    if (oldSize > checkpoint.size) return { status: 400, text: 'old size beyond checkpoint\n' };
    const known = state.get(origin) ?? { size: 0, root: new Uint8Array(32) };
    if (oldSize !== known.size) return { status: 409, type: 'text/x.tlog.size', text: `${known.size}\n` };
    if (oldSize === 0) {
      if (proof.length > 0) return { status: 422, text: 'proof must be empty\n' };
    } else if (oldSize === checkpoint.size) {
      if (Buffer.compare(Buffer.from(known.root), Buffer.from(checkpoint.rootHash)) !== 0) return { status: 409, text: 'root mismatch\n' };
    } else if (!verifyConsistency(oldSize, checkpoint.size, known.root, checkpoint.rootHash, proof)) {
      return { status: 422, text: 'consistency proof does not verify\n' };
    }
    state.set(origin, { size: checkpoint.size, root: checkpoint.rootHash });
    cosignedLog.push({ oldSize, size: checkpoint.size });
    const cosigned = cosignNote(note, { name, privateKey }, Math.floor(now() / 1000));
    const mine = cosigned.split('\n').filter((line) => line.startsWith(`${SIGNATURE_LINE_PREFIX}${name} `));
    return { status: 200, type: 'text/plain; charset=utf-8', text: mine.map((line) => `${line}\n`).join('') };
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (control.offline) {
        req.socket.destroy();
        return;
      }
      const answer =
        scripted.shift() ??
        (req.method === 'POST' && req.url === '/add-checkpoint'
          ? handle(Buffer.concat(chunks).toString('utf8'))
          : { status: 404, text: 'not found\n' });
      answers.push(answer.status);
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'text/plain; charset=utf-8' });
      res.end(answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    name,
    verifierKey: verifierKeyString(name, ed25519PublicKeyRaw(privateKey), SIGNATURE_TYPE_COSIGNATURE_V1),
    state,
    answers,
    cosigned: cosignedLog,
    scripted,
    get offline() {
      return control.offline;
    },
    set offline(value: boolean) {
      control.offline = value;
    },
    untrust: (origin) => {
      trusted.delete(origin);
    },
    trust: (logVerifierKey) => {
      trusted.set(parseVerifierKey(logVerifierKey).name, logVerifierKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

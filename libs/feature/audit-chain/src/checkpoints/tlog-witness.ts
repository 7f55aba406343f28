/**
 * Client side of the C2SP tlog-witness protocol (https://c2sp.org/tlog-witness), `add-checkpoint`:
 *
 *     POST <submission prefix>/add-checkpoint
 *     old <size the witness last cosigned>\n
 *     <base64 consistency proof hash>\n      (zero or more, at most 63; none when old is 0)
 *     \n
 *     <signed checkpoint note>
 *
 * 200: one or more cosignature lines (`— <name> <base64>\n`); 409 with `text/x.tlog.size`: the
 * witness's cosigned size differs from `old` (body `<size>\n`); 403/404: key or origin unknown to
 * the witness; 422: the consistency proof does not verify; 400: malformed.
 */
import { SIGNATURE_LINE_PREFIX, SIGNATURE_TYPE_COSIGNATURE_V1, parseVerifierKey } from '@svc/merkle';

/** Most proof lines a client may send (the protocol's limit). */
export const MAX_PROOF_LINES = 63;

/** Largest witness response read, in bytes; a witness answers a few signature lines. */
export const MAX_WITNESS_RESPONSE_BYTES = 64 * 1024;

/** The `add-checkpoint` request body. */
export function addCheckpointRequestBody(oldSize: number, proof: readonly Uint8Array[], signedNote: string): string {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) throw new Error('old size must be a non-negative integer');
  if (proof.length > MAX_PROOF_LINES) throw new Error('a consistency proof has at most 63 hashes');
  if (oldSize === 0 && proof.length > 0) throw new Error('the proof must be empty when the old size is 0');
  const lines = [`old ${oldSize}`, ...proof.map((hash) => Buffer.from(hash).toString('base64'))];
  return `${lines.join('\n')}\n\n${signedNote}`;
}

/** A witness identity from its cosignature/v1 verifier key. */
export interface WitnessIdentity {
  readonly name: string;
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  readonly verifierKey: string;
}

/**
 * Parses the witness's verifier key (`<name>+<key id>+<base64(0x04 || key)>`), checking its key id.
 * @throws NoteError for a malformed key, or Error when it is not a cosignature/v1 (0x04) key.
 */
export function parseWitnessKey(verifierKey: string): WitnessIdentity {
  const verifier = parseVerifierKey(verifierKey);
  // The key material follows the second '+' (base64 itself may contain '+').
  const material = /^[^+]*\+[0-9a-fA-F]{8}\+(.*)$/su.exec(verifierKey)?.[1] ?? '';
  const typed = Buffer.from(material, 'base64');
  if (typed[0] !== SIGNATURE_TYPE_COSIGNATURE_V1) throw new Error('the witness key must be a cosignature/v1 (type 0x04) verifier key');
  return { name: verifier.name, publicKey: new Uint8Array(typed.subarray(1)), verifierKey };
}

/**
 * The signature lines of a 200 response that name `witnessName` (the protocol says to ignore
 * lines from unknown keys). Returns undefined for a body that is not a sequence of signature lines.
 */
export function cosignatureLinesFor(responseBody: string, witnessName: string): string[] | undefined {
  if (!responseBody.endsWith('\n')) return undefined;
  const lines = responseBody.slice(0, -1).split('\n');
  if (lines.length === 0 || !lines.every((line) => line.startsWith(SIGNATURE_LINE_PREFIX))) return undefined;
  return lines.filter((line) => line.slice(SIGNATURE_LINE_PREFIX.length).split(' ')[0] === witnessName).map((line) => `${line}\n`);
}

/** The size in a 409 `text/x.tlog.size` body (`<decimal>\n`), or undefined if malformed. */
export function parseSizeResponse(body: string): number | undefined {
  const match = /^(0|[1-9][0-9]{0,15})\n$/.exec(body);
  if (!match?.[1]) return undefined;
  const size = Number(match[1]);
  return Number.isSafeInteger(size) ? size : undefined;
}

/** A witness's raw answer. */
export interface WitnessResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Sends `add-checkpoint` requests to one witness over HTTP(S). */
export class TlogWitnessClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** @throws on network failure, timeout or an oversized response. */
  async addCheckpoint(body: string): Promise<WitnessResponse> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/add-checkpoint`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
      redirect: 'error',
    });
    const text = await response.text();
    if (Buffer.byteLength(text) > MAX_WITNESS_RESPONSE_BYTES) throw new Error('witness response too large');
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: text };
  }
}

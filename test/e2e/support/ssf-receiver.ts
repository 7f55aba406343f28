import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

/** A SET as the receiver verified it, with the headers it came with. */
export interface ReceivedSet {
  headers: IncomingHttpHeaders;
  header: { typ?: string; kid?: string; alg?: string };
  claims: JWTPayload & { sub_id?: Record<string, unknown>; events?: Record<string, Record<string, unknown>>; txn?: string };
  at: number;
}

/** A receiver's view: the verified SETs, the refusals, and scripted answers (status codes, first in first out). */
export interface SsfReceiver {
  url: string;
  sets: ReceivedSet[];
  rejected: string[];
  answers: number[];
  /** Verifies SETs from now on against `issuer`'s published JWKS, for `audience`. */
  trust(issuer: string, audience: string): void;
  close(): Promise<void>;
}

/**
 * A Shared Signals receiver: an HTTP server that accepts RFC 8935 pushes and keeps only the SETs
 * that verify against the transmitter's published JWKS (issuer, audience, `typ`). Its answer can be
 * scripted per request (a 503 to exercise retries).
 */
export async function startSsfReceiver(): Promise<SsfReceiver> {
  const sets: ReceivedSet[] = [];
  const rejected: string[] = [];
  const answers: number[] = [];
  let verifier: ((token: string) => Promise<Omit<ReceivedSet, 'headers' | 'at'>>) | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const scripted = answers.shift();
        if (scripted !== undefined) return void res.writeHead(scripted).end();
        const token = Buffer.concat(chunks).toString('utf8');
        try {
          if (!verifier) throw new Error('no transmitter trusted');
          const verified = await verifier(token);
          sets.push({ ...verified, headers: req.headers, at: Date.now() });
          res.writeHead(202).end();
        } catch (error) {
          rejected.push(error instanceof Error ? error.message : String(error));
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ err: 'invalid_key', description: 'signature not verified' }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    sets,
    rejected,
    answers,
    trust(issuer, audience) {
      const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
      verifier = async (token) => {
        const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer, audience, typ: 'secevent+jwt', algorithms: ['EdDSA'] });
        return { header: protectedHeader, claims: payload as ReceivedSet['claims'] };
      };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

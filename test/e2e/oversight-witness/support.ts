import { verifyReceipt } from '@svc/sdk-receipts-verify';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { FakeClock } from '@svc/config';
import { verifyCompactJws, type VerifiedCompactJws } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import { startProcess, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, type HttpResult, type TestDatabase } from '@svc/testing';
import nacl from 'tweetnacl';
import { DataSource } from 'typeorm';
import { oversightWitnessFeature } from '@svc/oversight-witness';

/** A process running decision-gateway (API tokens, applications) and oversight-witness, on a FakeClock. */
export interface OversightStack {
  url: string;
  process: RunningProcess;
  clock: FakeClock;
  dataSource: DataSource;
  close(): Promise<void>;
}

export async function startOversightStack(label: string): Promise<OversightStack> {
  const database: TestDatabase = await createTestDatabase(label);
  const prefix = uniqueBusPrefix();
  const clock = new FakeClock('2026-03-01T10:00:00.000Z');
  const process = await startProcess({
    features: [decisionGatewayFeature, oversightWitnessFeature],
    env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: 'https://us.svc.example' }),
    clock,
  });
  return {
    url: process.url,
    process,
    clock,
    dataSource: process.app.get(DataSource),
    close: async () => {
      await process.close();
      await database.drop();
      await deleteTestStreams(prefix);
    },
  };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Creates an application and returns its id and API token. */
export async function createApp(stack: OversightStack, name = 'oversight-app'): Promise<{ id: string; token: string }> {
  const created = await stack.process.app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
  return { id: created.application.id, token: created.apiToken };
}

/** Sets the application's OAP mode through the gateway's public API. */
export async function setMode(
  stack: OversightStack,
  app: { id: string; token: string },
  mode: 'conductor' | 'oversight' | 'hybrid',
): Promise<void> {
  const res = await http('PATCH', `${stack.url}/api/v1/applications/${app.id}`, { headers: bearer(app.token), json: { mode } });
  if (res.status !== 200) throw new Error(`PATCH mode answered ${res.status}: ${res.text}`);
}

/** Creates a trusted attester over HTTP; returns its id and token. */
export async function createAttester(
  stack: OversightStack,
  app: { token: string },
  body: Record<string, unknown> = { name: 'engine', permissions: ['attestations:submit', 'attestations:heartbeat', 'escalations:create'] },
): Promise<{ id: string; token: string; body: Record<string, unknown> }> {
  const res = await http<{ trusted_attester: { id: string; token: string } }>('POST', `${stack.url}/api/v1/trusted_attesters`, {
    headers: bearer(app.token),
    json: body,
  });
  if (res.status !== 201) throw new Error(`create attester answered ${res.status}: ${res.text}`);
  return {
    id: res.body.trusted_attester.id,
    token: res.body.trusted_attester.token,
    body: res.body.trusted_attester as unknown as Record<string, unknown>,
  };
}

let evidenceCounter = 0;
/** A valid attestation body for `applicationId`; override any field. */
export function attestationBody(applicationId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  evidenceCounter += 1;
  return {
    attestation_id: `eng-${Date.now()}-${evidenceCounter}`,
    application_id: applicationId,
    agent_class: 'payments-agent',
    action_class: 'payment.initiate',
    decision: 'allow',
    decided_at: '2026-03-01T09:59:30Z',
    sequence_number: evidenceCounter,
    legal_basis: 'contract',
    evidence_digest: 'ab'.repeat(32),
    context: { amount: '10.00', currency: 'EUR' },
    requires_human_approval: false,
    ...overrides,
  };
}

export function submit(stack: OversightStack, token: string, body: unknown): Promise<HttpResult> {
  return http('POST', `${stack.url}/api/v1/oap/attestations`, { headers: bearer(token), json: body });
}

/**
 * Verifies a witness receipt twice: with the receipt-verification library (`verifyCompactJws`
 * against the region's key store, at the fake clock's time) and with tweetnacl over the JWKS
 * public key — an Ed25519 implementation independent of node:crypto and jose.
 */
export async function verifyWitnessReceipt(stack: OversightStack, receipt: string): Promise<VerifiedCompactJws> {
  const keys = stack.process.app.get(SigningKeyStore);
  const verified = await verifyCompactJws(receipt, (kid) => keys.publicKey(kid), { typ: 'oap+jwt', now: stack.clock.now() });
  const jwk = (await keys.jwks()).keys.find((k) => k.kid === verified.header.kid);
  if (!jwk) throw new Error('kid not in JWKS');
  const [header, payload, signature] = receipt.split('.') as [string, string, string];
  const ok = nacl.sign.detached.verify(
    new Uint8Array(Buffer.from(`${header}.${payload}`, 'ascii')),
    new Uint8Array(Buffer.from(signature, 'base64url')),
    new Uint8Array(Buffer.from(jwk.x, 'base64url')),
  );
  if (!ok) throw new Error('tweetnacl rejected the witness receipt signature');
  // The published receipt-verification library accepts it too, as a witness receipt only.
  const viaLibrary = await verifyReceipt(receipt, {
    keys: { keys: (await keys.jwks()).keys.map((k) => ({ ...k })) },
    now: stack.clock.now(),
    roles: ['witness'],
  });
  if (viaLibrary.claims.iss_role !== 'witness') throw new Error('receipt-verification library did not see a witness receipt');
  return verified;
}

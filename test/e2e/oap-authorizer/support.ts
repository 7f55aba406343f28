import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, type HttpResult } from '@svc/testing';
import { SignJWT, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { TestRegions } from '../support/regions';

/** An agent's DPoP key pair and its RFC 7638 thumbprint. */
export interface AgentKey {
  privateKey: KeyObject;
  jwk: JWK;
  jkt: string;
}

export async function newAgentKey(): Promise<AgentKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** An RFC 9449 DPoP proof; `overrides` forge individual parts. */
export async function dpopProof(
  key: AgentKey,
  method: string,
  url: string,
  options: { now: Date; accessToken?: string; jti?: string; iat?: number; typ?: string; jwk?: JWK } = { now: new Date() },
): Promise<string> {
  const claims: Record<string, unknown> = { htm: method, htu: url, jti: options.jti ?? randomUUID() };
  if (options.accessToken) claims.ath = createHash('sha256').update(options.accessToken).digest('base64url');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', typ: options.typ ?? 'dpop+jwt', jwk: options.jwk ?? key.jwk })
    .setIssuedAt(options.iat ?? Math.floor(options.now.getTime() / 1000))
    .sign(key.privateKey);
}

/** An application with its API token. */
export interface TestApp {
  id: string;
  token: string;
}

export async function createApp(stack: TestRegions, name = 'oap', region: 'us' | 'eu' = 'us'): Promise<TestApp> {
  const created = await stack.process[region].app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
  return { id: created.application.id, token: created.apiToken };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Bounds every step passes with; tests override one bound to hit one step. */
export const PASSING_BOUNDS = {
  scope_bounds: { allowed: ['payments:*'] },
  action_bounds: { allowed: ['pay', 'quote'] },
  value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '1000' },
  time_bounds: { hours_utc: [0, 24] },
  reputation_bounds: { min_trust_score: 0 },
  oap_sequence_bounds: { max_per_minute: 1000, max_continuation_depth: 2 },
  jurisdiction_bounds: { allowed: ['FR'] },
};

/** Registers an agent (optionally publishing a manifest) under the app. */
export async function createAgent(
  base: string,
  app: TestApp,
  options: { metadata?: Record<string, unknown>; manifest?: boolean } = {},
): Promise<string> {
  const res = await http('POST', `${base}/api/v1/agents`, {
    headers: bearer(app.token),
    json: { name: 'shopper', ...(options.metadata ? { agent_metadata: options.metadata } : {}) },
  });
  if (res.status !== 201) throw new Error(`agent registration failed: ${res.status} ${res.text}`);
  const agentId = res.body.id as string;
  if (options.manifest) await publishManifest(base, app, agentId);
  return agentId;
}

export async function publishManifest(base: string, app: TestApp, agentId: string, actions = ['pay', 'quote']): Promise<HttpResult> {
  const res = await http('POST', `${base}/api/v1/agents/${agentId}/capabilities`, {
    headers: bearer(app.token),
    json: {
      scopes: [
        { id: 'payments:write', label: 'Make payments' },
        { id: 'payments:read', label: 'Read payments', parent: 'payments:write' },
      ],
      actions,
    },
  });
  if (res.status !== 201) throw new Error(`manifest failed: ${res.status} ${res.text}`);
  return res;
}

export async function createAuthority(
  base: string,
  app: TestApp,
  agentId: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await http('POST', `${base}/api/v1/authorities`, {
    headers: bearer(app.token),
    json: {
      agent_id: agentId,
      principal_id: 'user_1',
      ...PASSING_BOUNDS,
      purposes: ['shopping'],
      valid_until: '2027-01-01T00:00:00Z',
      ...overrides,
    },
  });
  if (res.status !== 201) throw new Error(`authority failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

/** A grant request body for `agentId` bound to `key`. */
export function grantBody(agentId: string, key: AgentKey, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    agent_id: agentId,
    agent_dpop_jkt: key.jkt,
    scope: ['payments:write'],
    actions: ['pay'],
    valid_until: '2026-03-04T12:00:00Z',
    value_bounds: { amount_per_action: '25.50', currency: 'EUR' },
    human_register: { displayed_to_principal: true },
    ...overrides,
  };
}

/** POST /api/v1/grants with an API token, a fresh DPoP proof and an Idempotency-Key. */
export async function requestGrant(
  base: string,
  app: TestApp,
  key: AgentKey,
  body: Record<string, unknown>,
  options: { now: Date; idempotencyKey?: string; proof?: string; headers?: Record<string, string> },
): Promise<HttpResult> {
  const proof = options.proof ?? (await dpopProof(key, 'POST', `${base}/api/v1/grants`, { now: options.now }));
  return http('POST', `${base}/api/v1/grants`, {
    headers: { ...bearer(app.token), dpop: proof, 'idempotency-key': options.idempotencyKey ?? randomUUID(), ...options.headers },
    json: body,
  });
}

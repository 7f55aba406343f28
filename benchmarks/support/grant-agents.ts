import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

/** An agent with a capability, an authority to pay up to 100 EUR per action, and its DPoP key. */
export interface GrantAgent {
  id: string;
  privateKey: KeyObject;
  jwk: JWK;
  jkt: string;
}

/** A JSON POST as the benchmark's HTTP client makes it. */
export type PostJson = (path: string, body: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

/**
 * Creates `count` agents with a `payments:write` capability and an authority of the `bench-user`
 * principal generous enough that every grant of {@link grantBody} is allowed, each with an Ed25519
 * DPoP key pair.
 */
export async function seedGrantAgents(post: PostJson, count: number): Promise<GrantAgent[]> {
  const agents: GrantAgent[] = [];
  for (let i = 0; i < count; i += 1) {
    const agent = await post('/api/v1/agents', { name: `agent-${i}` });
    if (agent.status !== 201) throw new Error(`agent setup failed: ${agent.status} ${JSON.stringify(agent.body)}`);
    const id = agent.body.id as string;
    const capability = await post(`/api/v1/agents/${id}/capabilities`, {
      scopes: [{ id: 'payments:write', label: 'Pay' }],
      actions: ['pay'],
    });
    if (capability.status >= 300) throw new Error(`capability setup failed: ${capability.status} ${JSON.stringify(capability.body)}`);
    const authority = await post('/api/v1/authorities', {
      agent_id: id,
      principal_id: 'bench-user',
      scope_bounds: { allowed: ['payments:*'] },
      action_bounds: { allowed: ['pay'] },
      value_bounds: { currency: 'EUR', per_action: '100', aggregate: '100000000' },
      time_bounds: { hours_utc: [0, 24] },
      reputation_bounds: { min_trust_score: 0 },
      oap_sequence_bounds: { max_per_minute: 1_000_000, max_continuation_depth: 2 },
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
    });
    if (authority.status !== 201) throw new Error(`authority setup failed: ${authority.status} ${JSON.stringify(authority.body)}`);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = await exportJWK(publicKey);
    agents.push({ id, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') });
  }
  return agents;
}

/** The body of an allowed `POST /api/v1/grants` for the agent (1.00 EUR per action). */
export function grantBody(agent: GrantAgent, validUntil: Date): string {
  return JSON.stringify({
    agent_id: agent.id,
    agent_dpop_jkt: agent.jkt,
    scope: ['payments:write'],
    actions: ['pay'],
    valid_until: validUntil.toISOString(),
    value_bounds: { amount_per_action: '1.00', currency: 'EUR' },
  });
}

/** A single-use DPoP proof of the agent for `htm htu`, issued now. */
export function dpopProof(agent: GrantAgent, htm: string, htu: string): Promise<string> {
  return new SignJWT({ htm, htu, jti: randomUUID() })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: agent.jwk })
    .setIssuedAt()
    .sign(agent.privateKey);
}

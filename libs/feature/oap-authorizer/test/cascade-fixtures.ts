import type { Agent } from '../src/agents/agent';
import type { Authority } from '../src/authorities/authority';
import type { AuthorityBounds } from '../src/authorities/bounds';
import type { CascadeContext, CascadeStep, DelegationHop, GrantHistory, GrantRequest, StepResult } from '../src/grants/checks/cascade-step';

/** A Wednesday, inside the fixture authority's hours and validity. */
export const NOW = new Date('2026-03-04T10:30:00.000Z');

export const AGENT: Agent = {
  id: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
  applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
  name: 'a',
  status: 'active',
  metadata: null,
  trustScore: 80,
  vouchCount: 3,
  currentVersionId: null,
  suppressed: false,
  dpopJkt: null,
  createdAt: NOW,
};

export function authority(bounds: AuthorityBounds, overrides: Partial<Authority> = {}): Authority {
  return {
    id: 'auth_us_aaaaaaaaaaaaaaaaaaaa',
    applicationId: AGENT.applicationId,
    agentId: AGENT.id,
    principalId: 'user_1',
    status: 'active',
    bounds,
    boundsJson: JSON.stringify(bounds),
    purposes: ['shopping'],
    validFrom: new Date('2026-03-01T00:00:00Z'),
    validUntil: new Date('2026-04-01T00:00:00Z'),
    coolingOffSeconds: 0,
    manifestSha256: 'm1',
    createdAt: new Date('2026-03-01T00:00:00Z'),
    revokedAt: null,
    ...overrides,
  };
}

export function history(overrides: Partial<GrantHistory> = {}): GrantHistory {
  return {
    total: 0,
    lastMinute: 0,
    buckets: { minute: 0, hour: 0, day: 0 },
    aggregate: '0',
    month: '0',
    recentActions: [],
    grantedActions: new Set(),
    ...overrides,
  };
}

export function request(overrides: Partial<GrantRequest> = {}): GrantRequest {
  return {
    applicationId: AGENT.applicationId,
    agentId: AGENT.id,
    dpopJkt: 'jkt',
    scopes: ['payments:write'],
    actions: ['pay'],
    validUntil: new Date('2026-03-04T11:00:00Z'),
    delegationChain: [],
    ...overrides,
  };
}

/** A context whose authority has exactly `bounds`; everything else inside any bound. */
export function context(bounds: AuthorityBounds, overrides: Partial<CascadeContext> = {}): CascadeContext {
  return {
    now: NOW,
    request: request(),
    authority: authority(bounds),
    agent: AGENT,
    currentManifestSha256: 'm1',
    history: history(),
    ...overrides,
  };
}

export const PASS: StepResult = { outcome: 'pass' };

export function denied(reason: string, message: string): StepResult {
  return { outcome: 'deny', reason, message };
}

export function run(step: CascadeStep, ctx: CascadeContext): StepResult {
  return step.check(ctx);
}

export const hop = (iss: string, aud: string, sub: string, at: string, scope: string): DelegationHop => ({
  iss,
  aud,
  sub,
  delegated_at: at,
  scope,
  purpose: 'shopping',
  jti: `${iss}-${at}`,
});

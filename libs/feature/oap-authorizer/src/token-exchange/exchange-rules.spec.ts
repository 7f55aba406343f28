import fc from 'fast-check';
import { matchesName } from '../grants/checks/cascade-step';
import {
  actChainOf,
  actDepth,
  exchangeExpiry,
  exchangeScope,
  MAX_ACT_DEPTH,
  MAX_AGENT_TOKEN_TTL_SECONDS,
  type ActClaim,
} from './exchange-rules';

const areas = ['payments', 'calendar', 'files', 'mail'];
const permissions = ['read', 'write', 'send', '*'];
const scope = fc.tuple(fc.constantFrom(...areas), fc.constantFrom(...permissions)).map(([area, permission]) => `${area}:${permission}`);
const scopes = fc.array(scope, { maxLength: 8 });
const bounds = fc.record(
  {
    allowed: fc.option(scopes, { nil: undefined }),
    denied: fc.option(scopes, { nil: undefined }),
    unrestricted: fc.option(fc.boolean(), { nil: undefined }),
  },
  { requiredKeys: [] },
);

describe('token exchange rules', () => {
  it('never issues a scope outside the subject or the authority bounds (0 escalations in 2,000 runs)', () => {
    let escalations = 0;
    fc.assert(
      fc.property(
        fc.option(scopes, { nil: undefined }),
        scopes,
        fc.option(bounds, { nil: undefined }),
        (requested, subject, scopeBounds) => {
          const issued = exchangeScope({ requested, subject, bounds: scopeBounds });
          for (const granted of issued) {
            const inSubject = subject.includes(granted);
            const allowed =
              scopeBounds !== undefined &&
              (scopeBounds.unrestricted === true || (scopeBounds.allowed ?? []).some((p) => matchesName(p, granted)));
            const denied = (scopeBounds?.denied ?? []).some((p) => matchesName(p, granted));
            const wasRequested = requested === undefined || requested.includes(granted);
            if (!inSubject || !allowed || denied || !wasRequested || granted.includes('*')) escalations += 1;
          }
          return true;
        },
      ),
      { numRuns: 2_000 },
    );
    expect(escalations).toBe(0);
  });

  it('keeps every requested scope that both the subject and the bounds allow', () => {
    expect(
      exchangeScope({
        requested: ['payments:send', 'mail:send'],
        subject: ['payments:send', 'mail:send'],
        bounds: { allowed: ['payments:*'] },
      }),
    ).toEqual(['payments:send']);
    expect(
      exchangeScope({ requested: undefined, subject: ['calendar:read'], bounds: { unrestricted: true, denied: ['files:*'] } }),
    ).toEqual(['calendar:read']);
    expect(exchangeScope({ requested: ['payments:*'], subject: ['payments:send'], bounds: { allowed: ['payments:*'] } })).toEqual([]);
    expect(exchangeScope({ requested: ['calendar:read'], subject: ['calendar:read'], bounds: undefined })).toEqual([]);
  });

  it('never outlives the subject, the authority or the ceiling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (subjectMs, authorityMs) => {
        const now = new Date('2026-01-01T00:00:00Z');
        const expiry = exchangeExpiry({
          now,
          subjectExpiresAt: new Date(now.getTime() + subjectMs),
          authorityValidUntil: new Date(now.getTime() + authorityMs),
        });
        return (
          expiry.getTime() <= now.getTime() + subjectMs &&
          expiry.getTime() <= now.getTime() + authorityMs &&
          expiry.getTime() <= now.getTime() + MAX_AGENT_TOKEN_TTL_SECONDS * 1000
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it('caps the act chain depth', () => {
    let chain: ActClaim | undefined;
    for (let depth = 1; depth <= MAX_ACT_DEPTH; depth += 1) {
      chain = actChainOf(`agent_${depth}`, chain) ?? undefined;
      expect(actDepth(chain)).toBe(depth);
    }
    expect(actChainOf('agent_last', chain)).toBeNull();
    expect(actChainOf('agent_one', undefined)).toEqual({ sub: 'agent_one' });
  });
});

import { CONSENT_STATUSES, type ConsentStatus } from './decision';
import { CONSENT_ACTIONS, allowedConsentActions, nextConsentStatus } from './consent-transitions';

/** Spec: States and transitions — Consent token / session status. */
describe('consent transition table', () => {
  it.each([
    ['pending', 'sign_in', 'standard', 'authenticating'],
    ['authenticating', 'start_checks', 'standard', 'verifying'],
    ['verifying', 'review_terms', 'standard', 'reviewing'],
    ['reviewing', 'complete', 'standard', 'fulfilled'],
    ['pending', 'present_disclosures', 'informed', 'informed'],
    ['informed', 'capture_evidence', 'informed', 'evidenced'],
    ['evidenced', 'complete', 'informed', 'fulfilled'],
    ['fulfilled', 'revoke', 'standard', 'revoked'],
    ['fulfilled', 'revoke', 'informed', 'revoked'],
  ] as const)('%s --%s (%s path)--> %s', (from, action, path, to) => {
    expect(nextConsentStatus(from, action, path)).toBe(to);
  });

  it('lets decline end every in-flight status as expired, on both paths', () => {
    for (const from of ['pending', 'authenticating', 'verifying', 'reviewing', 'informed', 'evidenced'] as const) {
      expect(nextConsentStatus(from, 'decline', 'standard')).toBe('expired');
      expect(nextConsentStatus(from, 'decline', 'informed')).toBe('expired');
    }
  });

  it.each([
    ['pending', 'complete', 'standard'],
    ['pending', 'sign_in', 'informed'],
    ['pending', 'present_disclosures', 'standard'],
    ['reviewing', 'complete', 'informed'],
    ['evidenced', 'complete', 'standard'],
    ['verifying', 'complete', 'standard'],
    ['authenticating', 'review_terms', 'standard'],
    ['fulfilled', 'decline', 'standard'],
    ['expired', 'sign_in', 'standard'],
    ['revoked', 'revoke', 'standard'],
    ['pending', 'revoke', 'standard'],
  ] as const)('has no move from %s by %s on the %s path', (from, action, path) => {
    expect(nextConsentStatus(from, action, path)).toBeUndefined();
  });

  it('offers nothing from the closed statuses but revoke from fulfilled', () => {
    const closed: ConsentStatus[] = ['expired', 'revoked'];
    for (const status of closed) expect(allowedConsentActions(status, 'standard')).toEqual([]);
    expect(allowedConsentActions('fulfilled', 'standard')).toEqual(['revoke']);
    expect(allowedConsentActions('pending', 'standard')).toEqual(['sign_in', 'decline']);
    expect(allowedConsentActions('pending', 'informed')).toEqual(['present_disclosures', 'decline']);
  });

  it('reaches fulfilled from pending only through every step of a path', () => {
    for (const path of ['standard', 'informed'] as const) {
      let status: ConsentStatus = 'pending';
      const visited: ConsentStatus[] = [status];
      while (status !== 'fulfilled') {
        const next = CONSENT_ACTIONS.filter((a) => a !== 'decline')
          .map((a) => nextConsentStatus(status, a, path))
          .find((s) => s !== undefined);
        expect(next).toBeDefined();
        status = next!;
        visited.push(status);
      }
      expect(visited).toEqual(
        path === 'standard'
          ? ['pending', 'authenticating', 'verifying', 'reviewing', 'fulfilled']
          : ['pending', 'informed', 'evidenced', 'fulfilled'],
      );
    }
    expect(CONSENT_STATUSES).toHaveLength(9);
  });
});

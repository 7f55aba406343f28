import { PASS, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { ScopeBounds } from '../../authorities/bounds';
import { step04ScopeAllowed } from './step-04-scope-allowed';

const verdict = (scopeBounds: ScopeBounds | undefined, scopes: string[]) =>
  run(step04ScopeAllowed, context(scopeBounds ? { scope_bounds: scopeBounds } : {}, { request: request({ scopes }) }));

describe('step 4 — scope allowed', () => {
  it('denies when the authority configures no scope bounds', () => {
    expect(verdict(undefined, ['payments:write'])).toEqual(
      denied('scope_bounds_not_configured', 'The authority configures no scope bounds'),
    );
  });

  it('allows a scope matching any entry of a list of several, exactly or by wildcard', () => {
    const bounds = { allowed: ['profile:read', 'payments:*', 'mail:send'] };
    expect(verdict(bounds, ['payments:write'])).toEqual(PASS);
    expect(verdict(bounds, ['mail:send', 'profile:read'])).toEqual(PASS);
  });

  it('denies the first requested scope that no allowed entry matches', () => {
    const bounds = { allowed: ['profile:read', 'payments:*'] };
    expect(verdict(bounds, ['profile:read', 'mail:send'])).toEqual(denied('scope_not_allowed', 'Scope mail:send is not allowed'));
    expect(verdict(bounds, ['profile:write'])).toEqual(denied('scope_not_allowed', 'Scope profile:write is not allowed'));
  });

  it('denies every scope when the allowed list is absent and scopes are not unrestricted', () => {
    expect(verdict({ denied: ['payments:admin'] }, ['payments:write'])).toEqual(
      denied('scope_not_allowed', 'Scope payments:write is not allowed'),
    );
  });

  it('denies a scope matching any entry of a denied list of several, before the allowed list', () => {
    const bounds = { allowed: ['payments:*'], denied: ['payments:admin', 'payments:refund'] };
    expect(verdict(bounds, ['payments:refund'])).toEqual(denied('scope_denied', 'Scope payments:refund is denied'));
    expect(verdict(bounds, ['payments:write', 'payments:admin'])).toEqual(denied('scope_denied', 'Scope payments:admin is denied'));
    expect(verdict(bounds, ['payments:write'])).toEqual(PASS);
  });

  it('lets unrestricted scopes through, except denied ones', () => {
    expect(verdict({ unrestricted: true }, ['anything:at-all'])).toEqual(PASS);
    expect(verdict({ unrestricted: true, denied: ['admin:*', 'root'] }, ['admin:users'])).toEqual(
      denied('scope_denied', 'Scope admin:users is denied'),
    );
    expect(verdict({ unrestricted: false, allowed: ['profile:read'] }, ['mail:send'])).toMatchObject({ reason: 'scope_not_allowed' });
  });
});

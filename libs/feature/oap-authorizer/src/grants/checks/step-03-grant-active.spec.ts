import { AGENT, NOW, PASS, authority, context, denied, request, run } from '../../../test/cascade-fixtures';
import { step03GrantActive } from './step-03-grant-active';

const VALID_FROM = new Date('2026-03-01T00:00:00Z');
const VALID_UNTIL = new Date('2026-04-01T00:00:00Z');
const at = (ms: number) => new Date(ms);

describe('step 3 — grant exists and active', () => {
  it('passes an active authority and agent with valid_until inside the authority', () => {
    expect(run(step03GrantActive, context({}))).toEqual(PASS);
  });

  it.each([
    ['no authority', { authority: undefined }, denied('authority_not_found', 'No authority covers this agent')],
    [
      'a proposed authority the person never granted',
      { authority: authority({}, { status: 'proposed', principalId: null }) },
      denied('authority_not_granted', 'The authority was proposed but the person has not granted it'),
    ],
    [
      'a declined authority',
      { authority: authority({}, { status: 'declined', principalId: null }) },
      denied('authority_declined', 'The person declined the authority'),
    ],
    [
      'a suspended authority',
      { authority: authority({}, { status: 'suspended' }) },
      denied('authority_suspended', 'The authority is suspended'),
    ],
    ['a revoked authority', { authority: authority({}, { status: 'revoked' }) }, denied('authority_revoked', 'The authority is revoked')],
    ['a suspended agent', { agent: { ...AGENT, status: 'suspended' as const } }, denied('agent_suspended', 'The agent is suspended')],
  ])('denies %s', (_name, overrides, verdict) => {
    expect(run(step03GrantActive, context({}, overrides))).toEqual(verdict);
  });

  it('denies before valid_from and passes from valid_from on', () => {
    const ctx = (now: Date) => context({}, { now, request: request({ validUntil: new Date(now.getTime() + 60_000) }) });
    expect(run(step03GrantActive, ctx(at(VALID_FROM.getTime() - 1)))).toEqual(
      denied('authority_not_yet_valid', 'The authority is not valid yet'),
    );
    expect(run(step03GrantActive, ctx(VALID_FROM))).toEqual(PASS);
  });

  it('denies during the cooling-off period, to the millisecond', () => {
    const cooling = (now: Date) =>
      context({}, { now, authority: authority({}, { coolingOffSeconds: 60 }), request: request({ validUntil: VALID_UNTIL }) });
    const end = VALID_FROM.getTime() + 60_000;
    expect(run(step03GrantActive, cooling(at(VALID_FROM.getTime() + 30_000)))).toEqual(
      denied('authority_cooling_off', 'The authority is in its cooling-off period'),
    );
    expect(run(step03GrantActive, cooling(at(end - 1)))).toMatchObject({ reason: 'authority_cooling_off' });
    expect(run(step03GrantActive, cooling(at(end)))).toEqual(PASS);
  });

  it('denies from valid_until of the authority on', () => {
    const ctx = (now: Date) => context({}, { now, request: request({ validUntil: VALID_UNTIL }) });
    expect(run(step03GrantActive, ctx(at(VALID_UNTIL.getTime() - 1)))).toEqual(PASS);
    expect(run(step03GrantActive, ctx(VALID_UNTIL))).toEqual(denied('authority_expired', 'The authority has expired'));
  });

  it('denies a requested valid_until that is not in the future', () => {
    expect(run(step03GrantActive, context({}, { request: request({ validUntil: NOW }) }))).toEqual(
      denied('grant_validity_in_past', 'valid_until is not in the future'),
    );
    expect(run(step03GrantActive, context({}, { request: request({ validUntil: at(NOW.getTime() - 1) }) }))).toMatchObject({
      reason: 'grant_validity_in_past',
    });
    expect(run(step03GrantActive, context({}, { request: request({ validUntil: at(NOW.getTime() + 1) }) }))).toEqual(PASS);
  });

  it("denies a requested valid_until beyond the authority's, passes exactly at it", () => {
    expect(run(step03GrantActive, context({}, { request: request({ validUntil: VALID_UNTIL }) }))).toEqual(PASS);
    expect(run(step03GrantActive, context({}, { request: request({ validUntil: at(VALID_UNTIL.getTime() + 1) }) }))).toEqual(
      denied('grant_validity_exceeds_authority', 'valid_until is beyond the authority'),
    );
  });
});

import { AGENT, PASS, context, denied, hop, request, run } from '../../../test/cascade-fixtures';
import type { SequenceBounds } from '../../authorities/bounds';
import type { DelegationHop } from './cascade-step';
import { DEFAULT_MAX_CONTINUATION_DEPTH, step14ContinuationDepth } from './step-14-continuation-depth';

/** A valid chain of `depth` hops from user_1 to the agent, each a minute after the previous. */
function chain(depth: number): DelegationHop[] {
  return Array.from({ length: depth }, (_, index) => {
    const iss = index === 0 ? 'user_1' : `planner_${index}`;
    const aud = index === depth - 1 ? 'agent' : `planner_${index + 1}`;
    const sub = index === depth - 1 ? AGENT.id : aud;
    return hop(iss, aud, sub, new Date(Date.parse('2026-03-04T09:00:00Z') + index * 60_000).toISOString(), 'payments:write');
  });
}
const verdict = (sequence: SequenceBounds | undefined, hops: DelegationHop[]) =>
  run(step14ContinuationDepth, context(sequence ? { oap_sequence_bounds: sequence } : {}, { request: request({ delegationChain: hops }) }));
const NOT_CONFIGURED = denied('continuation_depth_not_configured', 'The authority configures no continuation depth');

describe('step 14 — continuation chain depth', () => {
  it('passes a request without a chain, even with no sequence bounds', () => {
    expect(verdict(undefined, [])).toEqual(PASS);
  });

  it('allows a chain of exactly the configured depth and denies one hop more', () => {
    expect(verdict({ max_continuation_depth: 2 }, chain(2))).toEqual(PASS);
    expect(verdict({ max_continuation_depth: 2 }, chain(3))).toEqual(denied('continuation_depth_exceeded', 'At most 2 delegation hops'));
  });

  it('denies every chain under a depth of 0', () => {
    expect(verdict({ max_continuation_depth: 0 }, chain(1))).toEqual(denied('continuation_depth_exceeded', 'At most 0 delegation hops'));
  });

  it('denies a chain when no depth is configured: absence is never unlimited', () => {
    expect(verdict(undefined, chain(1))).toEqual(NOT_CONFIGURED);
    expect(verdict({ max_per_minute: 10 }, chain(1))).toEqual(NOT_CONFIGURED);
    expect(verdict({ unrestricted: false }, chain(1))).toEqual(NOT_CONFIGURED);
  });

  it(`limits unrestricted sequence bounds to ${DEFAULT_MAX_CONTINUATION_DEPTH} hops`, () => {
    expect(DEFAULT_MAX_CONTINUATION_DEPTH).toBe(16);
    expect(verdict({ unrestricted: true }, chain(DEFAULT_MAX_CONTINUATION_DEPTH))).toEqual(PASS);
    expect(verdict({ unrestricted: true }, chain(DEFAULT_MAX_CONTINUATION_DEPTH + 1))).toEqual(
      denied('continuation_depth_exceeded', 'At most 16 delegation hops'),
    );
  });

  it('applies a configured depth even when unrestricted', () => {
    expect(verdict({ unrestricted: true, max_continuation_depth: 1 }, chain(2))).toMatchObject({ reason: 'continuation_depth_exceeded' });
  });

  it('denies an invalid chain before looking at the depth, with the violation', () => {
    const widened = chain(2).map((h, index) => (index === 1 ? { ...h, scope: 'payments:write mail:send' } : h));
    expect(verdict({ max_continuation_depth: 5 }, widened)).toEqual(
      denied('delegation_chain_invalid', "Delegation chain invalid: hop 1: scope is not a reduction of the previous hop's"),
    );
    expect(verdict(undefined, widened)).toMatchObject({ reason: 'delegation_chain_invalid' });
  });

  it("validates the chain against the request's agent, scopes and time", () => {
    const hops = chain(1);
    expect(
      run(
        step14ContinuationDepth,
        context(
          { oap_sequence_bounds: { max_continuation_depth: 1 } },
          { request: request({ delegationChain: hops, scopes: ['mail:send'] }) },
        ),
      ),
    ).toMatchObject({ reason: 'delegation_chain_invalid' });
    expect(
      run(
        step14ContinuationDepth,
        context(
          { oap_sequence_bounds: { max_continuation_depth: 1 } },
          { request: request({ delegationChain: hops, agentId: 'agent_us_b' }) },
        ),
      ),
    ).toMatchObject({ reason: 'delegation_chain_invalid' });
    expect(
      run(
        step14ContinuationDepth,
        context(
          { oap_sequence_bounds: { max_continuation_depth: 1 } },
          { now: new Date('2026-03-04T08:00:00Z'), request: request({ delegationChain: hops }) },
        ),
      ),
    ).toMatchObject({ reason: 'delegation_chain_invalid' });
  });
});

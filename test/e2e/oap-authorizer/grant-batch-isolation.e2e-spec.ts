import { randomUUID } from 'node:crypto';
import { RequestGrant } from '@svc/oap-authorizer';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  createAgent,
  createApp,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/**
 * Grant requests of all applications share group commits. A request whose value Postgres refuses
 * (here an agent id with U+0000, handed to the writer past the API edge, which refuses it) must
 * fail alone: every other application's valid request in its batch is decided and answered as if
 * it had been alone. Spec: OAP grant request; architecture: hot write paths commit in groups.
 */
describe('POST /api/v1/grants: one poisoned request in a group commit', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let key: AgentKey;

  beforeAll(async () => {
    stack = await startRegions('oap_grant_batch_isolation', { clock, regions: ['us'] });
    us = stack.url.us;
    key = await newAgentKey();
  });
  afterAll(() => stack?.close());

  const validUntil = () => new Date(clock.now().getTime() + 3600_000).toISOString();

  it('answers every valid grant of the other applications while poisoned requests of one application fail alone', async () => {
    const victims: Array<{ app: TestApp; agentId: string }> = [];
    for (const name of ['victim-a', 'victim-b', 'victim-c']) {
      const app = await createApp(stack, name);
      const agentId = await createAgent(us, app, { manifest: true });
      await createAuthority(us, app, agentId);
      victims.push({ app, agentId });
    }
    const attacker = await createApp(stack, 'attacker');
    const writer = stack.process.us.app.get(RequestGrant);
    const poison = (round: number, index: number) =>
      writer.execute(
        {
          applicationId: attacker.id,
          agentId: `agent_us_${round}${index}\u0000b`,
          dpopJkt: key.jkt,
          scopes: ['payments:write'],
          actions: ['pay'],
          validUntil: new Date(validUntil()),
          delegationChain: [],
        },
        { idempotencyKey: randomUUID(), requestSha256: randomUUID() },
      );

    const validStatuses: number[] = [];
    const poisonOutcomes: Array<'rejected' | 'fulfilled'> = [];
    for (let round = 0; round < 5; round += 1) {
      const proofs = await Promise.all(
        victims.flatMap(() => [0, 1, 2, 3].map(() => dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: clock.now() }))),
      );
      const valid = victims.flatMap((victim, v) =>
        [0, 1, 2, 3].map((i) =>
          requestGrant(us, victim.app, key, grantBody(victim.agentId, key, { valid_until: validUntil() }), {
            now: clock.now(),
            proof: proofs[v * 4 + i],
          }),
        ),
      );
      // Poisoned requests keep arriving while the valid ones are decided, on both writers.
      const poisoned = Array.from({ length: 12 }, (_, index) =>
        new Promise((resolve) => setTimeout(resolve, index * 3)).then(() => poison(round, index)),
      );
      const [answers, attacks] = await Promise.all([Promise.all(valid), Promise.allSettled(poisoned)]);
      validStatuses.push(...answers.map((answer) => answer.status));
      poisonOutcomes.push(...attacks.map((attack) => attack.status));
    }

    expect(validStatuses).toEqual(Array.from({ length: 60 }, () => 201));
    expect(poisonOutcomes).toEqual(Array.from({ length: 60 }, () => 'rejected'));
  });
});

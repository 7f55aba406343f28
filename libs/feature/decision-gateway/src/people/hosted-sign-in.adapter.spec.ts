import type { RpcClient } from '@svc/bus';
import type { DecisionSession } from '../decisions/decision';
import { SettledFlowVersions } from '../decisions/settled-flow-versions';
import { PeopleHostedSignIn, SIGN_IN_REQUIREMENT } from './hosted-sign-in.adapter';
import type { PeopleRepository } from './people.repository';
import type { PersonSessionsService } from './person-sessions.service';

const session = (flowVersion: number): DecisionSession =>
  ({ kind: 'consent', applicationId: 'app_1', flowId: 'flw_1', flowVersion }) as unknown as DecisionSession;

/** The sign-in requirement of a flow version past its draft is asked of consent-records once. */
describe('PeopleHostedSignIn.requiresSignIn', () => {
  const adapter = (status: (version: number) => string) => {
    const asked: number[] = [];
    const rpc = {
      call: async (_subject: string, request: { version: number }) => {
        asked.push(request.version);
        return { found: true, version: request.version, status: status(request.version), requirements: [SIGN_IN_REQUIREMENT] };
      },
    } as unknown as RpcClient;
    return { signIn: new PeopleHostedSignIn({} as PersonSessionsService, {} as PeopleRepository, new SettledFlowVersions(rpc)), asked };
  };

  it('asks once for a version past its draft, by version', async () => {
    const { signIn, asked } = adapter(() => 'active');
    expect([
      await signIn.requiresSignIn(session(1)),
      await signIn.requiresSignIn(session(1)),
      await signIn.requiresSignIn(session(2)),
    ]).toEqual([true, true, true]);
    expect(asked).toEqual([1, 2]);
  });

  it('asks every time for a draft', async () => {
    const { signIn, asked } = adapter(() => 'draft');
    await signIn.requiresSignIn(session(1));
    await signIn.requiresSignIn(session(1));
    expect(asked).toEqual([1, 1]);
  });
});

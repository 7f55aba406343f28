import { DomainError } from '@svc/errors';
import { ApplicationFactsReader } from './application-facts';
import type { RpcClient } from './nest-rpc';

/** An RpcClient whose `gateway.get_application` answers `reply` (or fails with `error`); counts calls. */
function gateway(answer: () => Promise<unknown>): { rpc: RpcClient; calls: string[] } {
  const calls: string[] = [];
  const rpc = {
    call: async (method: string, request: { applicationId: string }) => {
      calls.push(`${method} ${request.applicationId}`);
      return answer();
    },
  } as unknown as RpcClient;
  return { rpc, calls };
}

/** The application facts producers stamp on events for the receipts service (platform-shape item 3). */
describe('ApplicationFactsReader', () => {
  it('stamps the name and jurisdiction decision-gateway answers, and asks once per application for a burst of writes', async () => {
    const { rpc, calls } = gateway(async () => ({ found: true, name: 'Acme Ltd', jurisdiction: 'GB' }));
    const reader = new ApplicationFactsReader(rpc);
    const facts = await reader.ofAll(['app_a', 'app_a', 'app_a']);
    expect(facts).toEqual(new Map([['app_a', { name: 'Acme Ltd', jurisdiction: 'GB' }]]));
    expect(await reader.of('app_a')).toEqual({ name: 'Acme Ltd', jurisdiction: 'GB' });
    expect(calls).toEqual(['gateway.get_application app_a']);
  });

  it('stamps an unknown application, and one without a stated regime, with empty fields', async () => {
    expect(await new ApplicationFactsReader(gateway(async () => ({ found: false })).rpc).of('app_x')).toEqual({
      name: '',
      jurisdiction: '',
    });
    const unspecified = gateway(async () => ({ found: true, name: 'Acme', jurisdiction: 'unspecified' }));
    expect(await new ApplicationFactsReader(unspecified.rpc).of('app_y')).toEqual({ name: 'Acme', jurisdiction: '' });
  });

  it('lets a write go on without the facts when decision-gateway does not answer, and does not ask again at once', async () => {
    const { rpc, calls } = gateway(async () => {
      throw new DomainError('unavailable', 'service_unavailable', 'Upstream gateway.get_application did not answer');
    });
    const reader = new ApplicationFactsReader(rpc);
    expect(await reader.of('app_a')).toBeUndefined();
    expect(await reader.ofAll(['app_a'])).toEqual(new Map());
    expect(calls).toHaveLength(1);
  });
});

import { ConfigError, loadConfig } from '@svc/config';
import { AuditChainConfig } from './audit-chain.config';

const platform = {
  REGION: 'us',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc_us',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};
const load = (values: Record<string, string>): AuditChainConfig => loadConfig(AuditChainConfig, { ...platform, ...values });

describe('AuditChainConfig', () => {
  it('defaults to a 15-minute interval and no witness', () => {
    expect(load({})).toMatchObject({ AUDIT_CHECKPOINT_INTERVAL_SECONDS: 900, AUDIT_WITNESS_URL: undefined, AUDIT_APPEND_MAX_BATCH: 1000 });
  });

  it('reads its variables from the environment', () => {
    expect(load({ AUDIT_CHECKPOINT_INTERVAL_SECONDS: '60' }).AUDIT_CHECKPOINT_INTERVAL_SECONDS).toBe(60);
  });

  it.each([
    [{ AUDIT_WITNESS_URL: 'http://127.0.0.1:9' }, 'AUDIT_WITNESS_KEY'],
    [{ AUDIT_WITNESS_KEY: 'w+01234567+BAAA' }, 'AUDIT_WITNESS_URL'],
    [{ AUDIT_WITNESS_URL: 'not a url', AUDIT_WITNESS_KEY: 'w+01234567+BAAA' }, 'AUDIT_WITNESS_URL'],
    [{ AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0' }, 'AUDIT_CHECKPOINT_INTERVAL_SECONDS'],
    [{ AUDIT_APPEND_MAX_BATCH: 'many' }, 'AUDIT_APPEND_MAX_BATCH'],
  ])('refuses %j naming %s', (values, variable) => {
    let error: unknown;
    try {
      load(values);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toContain(variable);
  });
});

import { ConfigError, type PlatformConfig } from '@svc/config';
import { loadAuditChainConfig } from './audit-chain.config';

const platform = (values: Record<string, string>) => values as unknown as PlatformConfig;

describe('loadAuditChainConfig', () => {
  it('defaults to a 15-minute interval and no witness', () => {
    expect(loadAuditChainConfig(platform({}), {})).toMatchObject({ AUDIT_CHECKPOINT_INTERVAL_SECONDS: 900, AUDIT_WITNESS_URL: undefined, AUDIT_APPEND_MAX_BATCH: 1000 });
  });

  it('reads variables passed through the loaded platform config before the environment', () => {
    const config = loadAuditChainConfig(platform({ AUDIT_CHECKPOINT_INTERVAL_SECONDS: '60' }), { AUDIT_CHECKPOINT_INTERVAL_SECONDS: '120' });
    expect(config.AUDIT_CHECKPOINT_INTERVAL_SECONDS).toBe(60);
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
      loadAuditChainConfig(platform(values), {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toContain(variable);
  });
});

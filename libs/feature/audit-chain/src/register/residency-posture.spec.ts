import { loadConfig } from '@svc/config';
import { adequacyOf, ADEQUACY_TABLE } from './adequacy';
import { computePosture, isPrivateHost } from './residency-posture';
import { ResidencyRegisterConfig } from './residency-register.config';

const env = (extra: Record<string, string> = {}) => ({
  REGION: 'eu',
  HTTP_PORT: '8080',
  DATABASE_URL: 'postgres://svc@10.0.3.4:5432/svc_eu',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  NATS_URL: 'nats://127.0.0.1:4222',
  ...extra,
});

describe('adequacy table', () => {
  it('is dated and sourced, and gives each destination a verdict', () => {
    expect(ADEQUACY_TABLE.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(ADEQUACY_TABLE.source).toContain('European Commission');
    expect(adequacyOf('JP').verdict).toBe('adequate');
    expect(adequacyOf('US')).toMatchObject({ verdict: 'partial', decision: expect.stringContaining('Data Privacy Framework') });
    expect(adequacyOf('FR').verdict).toBe('eea');
    expect(adequacyOf('CN')).toEqual({ verdict: 'not_adequate', decision: null });
  });
});

describe('residency posture from the configuration', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['::1', true],
    ['localhost', true],
    ['db.example.com', false],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
  ])('%s is private: %s', (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });

  it('verifies private hosts, states declarations, and flags a declaration outside the region as violated', () => {
    const config = loadConfig(ResidencyRegisterConfig, env({ RESIDENCY_BACKUP_COUNTRY: 'DE', RESIDENCY_BUS_COUNTRY: 'US' }));
    const posture = computePosture(config, new Map([['contact_data', ['US']]]), new Date('2026-01-01T00:00:00Z'));
    const status = Object.fromEntries(posture.components.map((c) => [c.component, `${c.status}:${c.country ?? '-'}`]));
    expect(status).toEqual({
      database: 'verified:DE',
      bus: 'violated:US',
      backups: 'declared:DE',
      log_sink: 'declared:-',
      telemetry: 'verified:DE',
    });
    const contact = posture.data.find((row) => row.data_category === 'contact_data');
    expect(contact).toMatchObject({
      country: 'DE',
      storage_locations: ['DE', 'US'],
      processing_locations: ['DE', 'US'],
      status: 'violated',
    });
  });

  it('does not state the country of a public database host nobody declared (absence rule)', () => {
    const config = loadConfig(ResidencyRegisterConfig, env({ DATABASE_URL: 'postgres://svc@db.example.com:5432/svc_eu' }));
    const database = computePosture(config, new Map(), new Date()).components.find((c) => c.component === 'database');
    expect(database).toMatchObject({ country: null, status: 'declared', host: 'db.example.com' });
    expect(JSON.stringify(database)).not.toContain('svc@');
  });

  it('names a bad declaration variable at boot', () => {
    expect(() => loadConfig(ResidencyRegisterConfig, env({ RESIDENCY_LOG_SINK_COUNTRY: 'Germany' }))).toThrow(/RESIDENCY_LOG_SINK_COUNTRY/);
  });
});

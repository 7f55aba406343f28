import { ConfigError, loadConfig } from './load-config';
import { PlatformConfig, regionCountries, regionUrls } from './platform-config';

const valid = {
  REGION: 'eu',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc_eu',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('config validated at boot', () => {
  it('builds a typed config with defaults for unset variables', () => {
    const config = loadConfig(PlatformConfig, valid);
    expect(config).toMatchObject({
      REGION: 'eu',
      HTTP_PORT: 8080,
      DATABASE_POOL_SIZE: 5,
      NATS_URL: 'nats://127.0.0.1:4222',
      BUS_PREFIX: 'svc',
    });
  });

  it('converts numeric variables', () => {
    expect(loadConfig(PlatformConfig, { ...valid, HTTP_PORT: '9001' }).HTTP_PORT).toBe(9001);
  });

  it.each([
    ['REGION', { REGION: undefined }],
    ['REGION', { REGION: 'mars' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['KEY_ENCRYPTION_KEY', { KEY_ENCRYPTION_KEY: undefined }],
    ['KEY_ENCRYPTION_KEY', { KEY_ENCRYPTION_KEY: 'c2hvcnQ=' }],
    ['HTTP_PORT', { HTTP_PORT: '70000' }],
    ['HTTP_PORT', { HTTP_PORT: 'eighty' }],
    ['NATS_URL', { NATS_URL: 'http://nats' }],
    ['REGION_URLS', { REGION_URLS: 'us http://x' }],
    ['REGION_COUNTRIES', { REGION_COUNTRIES: 'eu=Germany' }],
    ['REGION_COUNTRIES', { REGION_COUNTRIES: 'eu=de' }],
  ])('refuses a bad or missing %s, naming it', (name, override) => {
    const env: Record<string, string | undefined> = { ...valid, ...override };
    let error: unknown;
    try {
      loadConfig(PlatformConfig, env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toContain(name);
    expect((error as ConfigError).message).toContain(name);
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig(PlatformConfig, {})).toThrow(/REGION.*DATABASE_URL.*KEY_ENCRYPTION_KEY|REGION/);
    try {
      loadConfig(PlatformConfig, {});
    } catch (error) {
      expect((error as ConfigError).variables).toEqual(expect.arrayContaining(['REGION', 'DATABASE_URL', 'KEY_ENCRYPTION_KEY']));
    }
  });

  it('maps each region to the country its data lives in (ISO 3166-1 alpha-2), overridable per region', () => {
    expect(regionCountries(loadConfig(PlatformConfig, valid))).toEqual({ us: 'US', eu: 'DE', ap: 'SG' });
    expect(regionCountries(loadConfig(PlatformConfig, { ...valid, REGION_COUNTRIES: 'eu=IE' }))).toEqual({ us: 'US', eu: 'IE', ap: 'SG' });
  });

  it('parses REGION_URLS into a map', () => {
    expect(regionUrls({ REGION_URLS: 'us=http://a:1,eu=https://b/' })).toEqual({ us: 'http://a:1', eu: 'https://b' });
  });
});

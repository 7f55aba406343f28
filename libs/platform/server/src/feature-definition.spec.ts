import { Module } from '@nestjs/common';
import { ConfigError, PlatformConfig, ProcessConfig, intFromEnv } from '@svc/config';
import { Transform } from 'class-transformer';
import { IsInt, Matches, Min } from 'class-validator';
import { loadProcessConfiguration, type FeatureDefinition } from './feature-definition';

@Module({})
class EmptyModule {}

class StoringConfig extends PlatformConfig {
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  STORING_BATCH = 10;
}

class IngressConfig extends ProcessConfig {
  @Matches(/^[a-z]+$/, { message: 'INGRESS_NAME must be lowercase letters' })
  INGRESS_NAME!: string;
}

const feature = <C extends ProcessConfig>(name: string, config: FeatureDefinition<C>['config']): FeatureDefinition<C> => ({
  name,
  module: EmptyModule,
  config,
  migrations: [],
  outboxSchemas: [],
});
const storing = feature('storing', StoringConfig);
const ingress = feature('ingress', IngressConfig);
const platform = {
  REGION: 'us',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc_us',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('one validation pass over a process and its features', () => {
  it('names every bad variable of every feature at once, each once', () => {
    const error = configError(() => loadProcessConfiguration([storing, ingress], { STORING_BATCH: '0', INGRESS_NAME: 'NO' }));
    expect([...error.variables].sort()).toEqual(['DATABASE_URL', 'INGRESS_NAME', 'KEY_ENCRYPTION_KEY', 'REGION', 'STORING_BATCH']);
    expect(error.message).toContain('INGRESS_NAME must be lowercase letters');
  });

  it('gives each feature its typed config and the process a PlatformConfig when a feature keeps data', () => {
    const loaded = loadProcessConfiguration([storing, ingress], {
      ...platform,
      STORING_BATCH: '25',
      INGRESS_NAME: 'edge',
      PUBLIC_BASE_URL: 'https://us.example/',
    });
    expect(loaded.infrastructure).toBe(true);
    expect(loaded.process).toBeInstanceOf(PlatformConfig);
    expect(loaded.configs.get(StoringConfig).STORING_BATCH).toBe(25);
    expect(loaded.configs.get(IngressConfig).INGRESS_NAME).toBe('edge');
    expect(loaded.process.publicBaseUrl).toBe('https://us.example');
  });

  it('needs neither a database URL nor a key-encryption key for features that store nothing', () => {
    const loaded = loadProcessConfiguration([ingress], { REGION: 'eu', INGRESS_NAME: 'edge' });
    expect(loaded.infrastructure).toBe(false);
    expect(loaded.process).not.toBeInstanceOf(PlatformConfig);
    expect(loaded.process.REGION).toBe('eu');
  });
});

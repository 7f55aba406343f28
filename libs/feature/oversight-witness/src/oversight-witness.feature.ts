import type { FeatureDefinition } from '@svc/server';
import { OversightWitnessConfig } from './oversight-witness.config';
import { oversightMigrations } from './migrations';
import { OversightWitnessModule } from './oversight-witness.module';
import { OVERSIGHT_SCHEMA } from './schema';

/** oversight-witness as composed into a process. */
export const oversightWitnessFeature: FeatureDefinition = {
  name: 'oversight-witness',
  module: OversightWitnessModule,
  config: OversightWitnessConfig,
  migrations: [oversightMigrations],
  outboxSchemas: [OVERSIGHT_SCHEMA],
};

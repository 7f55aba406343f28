import type { FeatureDefinition } from '@svc/server';
import { oversightMigrations } from './migrations';
import { OversightWitnessModule } from './oversight-witness.module';
import { OVERSIGHT_SCHEMA } from './schema';

/** oversight-witness as composed into a process. */
export const oversightWitnessFeature: FeatureDefinition = {
  name: 'oversight-witness',
  module: OversightWitnessModule,
  migrations: [oversightMigrations],
  outboxSchemas: [OVERSIGHT_SCHEMA],
};

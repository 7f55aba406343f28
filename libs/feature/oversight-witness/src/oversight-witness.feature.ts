import type { FeatureDefinition } from '@svc/server';
import { OversightWitnessModule } from './oversight-witness.module';

/** oversight-witness as composed into a process. */
export const oversightWitnessFeature: FeatureDefinition = {
  name: 'oversight-witness',
  module: OversightWitnessModule,
  migrations: [],
  outboxSchemas: [],
};

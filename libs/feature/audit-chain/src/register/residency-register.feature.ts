import type { FeatureDefinition } from '@svc/server';
import { residencyMigrations } from './migrations';
import { ResidencyRegisterConfig } from './residency-register.config';
import { ResidencyRegisterModule } from './residency-register.module';

/**
 * The router's transfer register and residency posture as composed into a process. Unlike the
 * ingress (`residencyRouterFeature`, no database), it keeps the register in schema `residency` of
 * the region database and calls audit-chain over the bus, so its config extends `PlatformConfig`.
 */
export const residencyRegisterFeature: FeatureDefinition<ResidencyRegisterConfig> = {
  name: 'residency-register',
  module: ResidencyRegisterModule,
  config: ResidencyRegisterConfig,
  migrations: [residencyMigrations],
  outboxSchemas: [],
};

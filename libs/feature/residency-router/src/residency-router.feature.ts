import type { FeatureDefinition } from '@svc/server';
import { installRegionGuard } from './install-region-guard';
import { ResidencyRouterModule } from './residency-router.module';

/**
 * residency-router as composed into a process: the residency guard runs before every route.
 * In distributed mode its app adds the proxy to the other services.
 */
export const residencyRouterFeature: FeatureDefinition = {
  name: 'residency-router',
  module: ResidencyRouterModule,
  migrations: [],
  outboxSchemas: [],
  configureFastify: (fastify, config) => installRegionGuard(fastify, config),
};

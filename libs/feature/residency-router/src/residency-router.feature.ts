import { ProcessConfig } from '@svc/config';
import type { FeatureDefinition } from '@svc/server';
import { installProxy } from './install-proxy';
import { installRegionGuard } from './install-region-guard';
import { ResidencyProxyConfig } from './residency-router.config';
import { ResidencyRouterModule } from './residency-router.module';
import { parseServiceUrls } from './route-table';

/**
 * residency-router as composed into a process: the residency guard runs before every route. It
 * reads only the process's variables (region, public URLs, residency table).
 */
export const residencyRouterFeature: FeatureDefinition = {
  name: 'residency-router',
  module: ResidencyRouterModule,
  config: ProcessConfig,
  migrations: [],
  outboxSchemas: [],
  configureFastify: (fastify, config) => installRegionGuard(fastify, config),
};

/**
 * The router's proxy to the services behind it, in distributed mode (its own process, listed
 * before {@link residencyRouterFeature}): forwards every request the router does not answer itself.
 */
export const residencyProxyFeature: FeatureDefinition<ResidencyProxyConfig> = {
  name: 'residency-proxy',
  module: ResidencyRouterModule,
  config: ResidencyProxyConfig,
  migrations: [],
  outboxSchemas: [],
  configureFastify: (fastify, config) => installProxy(fastify, parseServiceUrls(config.SERVICE_URLS)),
};

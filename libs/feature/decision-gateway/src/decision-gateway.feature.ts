import type { FeatureDefinition } from '@svc/server';
import { DecisionGatewayConfig } from './decision-gateway.config';
import { DecisionGatewayModule } from './decision-gateway.module';
import { markDeprecatedAliases } from './decisions/deprecated-alias.interceptor';
import { gatewayMigrations } from './migrations';
import { GATEWAY_SCHEMA } from './schema';

/** decision-gateway as composed into a process. */
export const decisionGatewayFeature: FeatureDefinition = {
  name: 'decision-gateway',
  module: DecisionGatewayModule,
  config: DecisionGatewayConfig,
  migrations: [gatewayMigrations],
  outboxSchemas: [GATEWAY_SCHEMA],
  configureFastify: (fastify) => markDeprecatedAliases(fastify),
};

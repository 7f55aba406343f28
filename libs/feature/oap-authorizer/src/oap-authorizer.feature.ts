import type { FeatureDefinition } from '@svc/server';
import { OapAuthorizerConfig } from './oap-authorizer.config';
import { oapMigrations } from './migrations';
import { OapAuthorizerModule } from './oap-authorizer.module';
import { OAP_SCHEMA } from './schema';

/** oap-authorizer as composed into a process. */
export const oapAuthorizerFeature: FeatureDefinition = {
  name: 'oap-authorizer',
  module: OapAuthorizerModule,
  config: OapAuthorizerConfig,
  migrations: [oapMigrations],
  outboxSchemas: [OAP_SCHEMA],
};

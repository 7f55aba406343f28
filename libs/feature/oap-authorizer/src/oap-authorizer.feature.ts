import type { FeatureDefinition } from '@svc/server';
import { OapAuthorizerModule } from './oap-authorizer.module';

/** oap-authorizer as composed into a process. */
export const oapAuthorizerFeature: FeatureDefinition = {
  name: 'oap-authorizer',
  module: OapAuthorizerModule,
  migrations: [],
  outboxSchemas: [],
};

import { oapAuthorizerFeature } from '@svc/oap-authorizer';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [oapAuthorizerFeature], env: { SERVICE_NAME: 'oap-authorizer', ...process.env } }));

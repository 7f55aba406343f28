import { PlatformConfig, loadConfig } from '@svc/config';
import { oapAuthorizerFeature } from '@svc/oap-authorizer';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [oapAuthorizerFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'oap-authorizer', ...process.env }) }));

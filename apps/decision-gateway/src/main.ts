import { PlatformConfig, loadConfig } from '@svc/config';
import { decisionGatewayFeature } from '@svc/decision-gateway';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [decisionGatewayFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'decision-gateway', ...process.env }) }));

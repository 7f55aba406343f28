import { decisionGatewayFeature } from '@svc/decision-gateway';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [decisionGatewayFeature], env: { SERVICE_NAME: 'decision-gateway', ...process.env } }));

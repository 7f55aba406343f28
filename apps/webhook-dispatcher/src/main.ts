import { webhookDispatcherFeature } from '@svc/webhook-dispatcher';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [webhookDispatcherFeature], env: { SERVICE_NAME: 'webhook-dispatcher', ...process.env } }));

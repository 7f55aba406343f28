import { PlatformConfig, loadConfig } from '@svc/config';
import { webhookDispatcherFeature } from '@svc/webhook-dispatcher';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [webhookDispatcherFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'webhook-dispatcher', ...process.env }) }));

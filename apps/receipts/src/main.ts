import { PlatformConfig, loadConfig } from '@svc/config';
import { receiptsFeature } from '@svc/receipts';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [receiptsFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'receipts', ...process.env }) }));

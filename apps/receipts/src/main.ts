import { receiptsFeature } from '@svc/receipts';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [receiptsFeature], env: { SERVICE_NAME: 'receipts', ...process.env } }));

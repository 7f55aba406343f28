import { consentRecordsFeature } from '@svc/consent-records';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [consentRecordsFeature], env: { SERVICE_NAME: 'consent-records', ...process.env } }));

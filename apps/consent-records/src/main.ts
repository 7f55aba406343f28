import { PlatformConfig, loadConfig } from '@svc/config';
import { consentRecordsFeature } from '@svc/consent-records';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [consentRecordsFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'consent-records', ...process.env }) }));

import { PlatformConfig, loadConfig } from '@svc/config';
import { oversightWitnessFeature } from '@svc/oversight-witness';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [oversightWitnessFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'oversight-witness', ...process.env }) }));

import { oversightWitnessFeature } from '@svc/oversight-witness';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [oversightWitnessFeature], env: { SERVICE_NAME: 'oversight-witness', ...process.env } }));

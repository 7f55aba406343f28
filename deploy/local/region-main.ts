import { runMain } from '@svc/server';
import { startRegion } from '@svc/region-stack';

runMain(() => startRegion({ SERVICE_NAME: 'region', ...process.env }));

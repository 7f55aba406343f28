import { PlatformConfig, loadConfig } from '@svc/config';
import { runMain } from '@svc/server';
import { startRegion } from '@svc/region-stack';

runMain(() => startRegion(loadConfig(PlatformConfig, { SERVICE_NAME: 'region', ...process.env })));

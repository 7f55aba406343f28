import { PlatformConfig, loadConfig } from '@svc/config';
import { runMain } from '@svc/server';
import { startRegion } from './region-stack';

runMain(() => startRegion(loadConfig(PlatformConfig, { SERVICE_NAME: 'region', ...process.env })));

import { PlatformConfig, loadConfig } from '@svc/config';
import { auditChainFeature } from '@svc/audit-chain';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [auditChainFeature], config: loadConfig(PlatformConfig, { SERVICE_NAME: 'audit-chain', ...process.env }) }));

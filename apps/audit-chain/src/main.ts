import { auditChainFeature } from '@svc/audit-chain';
import { runMain, startProcess } from '@svc/server';

runMain(() => startProcess({ features: [auditChainFeature], env: { SERVICE_NAME: 'audit-chain', ...process.env } }));

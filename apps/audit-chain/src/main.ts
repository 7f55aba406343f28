import { auditChainFeature, residencyRegisterFeature } from '@svc/audit-chain';
import { runMain, startProcess } from '@svc/server';

// The transfer register and residency posture are hosted here: the router keeps no database.
runMain(() =>
  startProcess({ features: [auditChainFeature, residencyRegisterFeature], env: { SERVICE_NAME: 'audit-chain', ...process.env } }),
);

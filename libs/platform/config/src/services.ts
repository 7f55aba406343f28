/**
 * The seven services behind a region's router, in the launcher's order: in distributed mode
 * instance n of service i listens on the region's base port + 100 + n × 10 + i, so the order is
 * part of the local stack's port plan.
 */
export const BACKEND_SERVICE_NAMES = [
  'decision-gateway',
  'consent-records',
  'oap-authorizer',
  'oversight-witness',
  'receipts',
  'webhook-dispatcher',
  'audit-chain',
] as const;

/** The eight deployable services: the seven behind the router, then the router. */
export const SERVICE_NAMES = [...BACKEND_SERVICE_NAMES, 'residency-router'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

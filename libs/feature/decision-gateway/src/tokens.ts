/** Injection token of decision-gateway's outbox writer. */
export const GATEWAY_OUTBOX = Symbol('GATEWAY_OUTBOX');

/** Injection token of webhook-dispatcher's outbox writer. */
export const WEBHOOKS_OUTBOX = Symbol('WEBHOOKS_OUTBOX');

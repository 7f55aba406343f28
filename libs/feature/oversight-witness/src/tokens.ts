/** Injection token of oversight-witness's outbox writer (schema `oversight`). */
export const OVERSIGHT_OUTBOX = Symbol('OVERSIGHT_OUTBOX');

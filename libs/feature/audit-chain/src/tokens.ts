/** Injection token of the audit schema's outbox writer. */
export const AUDIT_OUTBOX = Symbol('AUDIT_OUTBOX');

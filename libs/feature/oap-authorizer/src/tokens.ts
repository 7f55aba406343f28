/** Injection token of oap-authorizer's outbox writer (schema `oap`). */
export const OAP_OUTBOX = Symbol('OAP_OUTBOX');

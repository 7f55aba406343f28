/** Injection token of consent-records' outbox writer. */
export const CONSENT_RECORDS_OUTBOX = Symbol('CONSENT_RECORDS_OUTBOX');

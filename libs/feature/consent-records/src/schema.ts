/** Postgres schema owned by consent-records. */
export const CONSENT_RECORDS_SCHEMA = 'consent_records';

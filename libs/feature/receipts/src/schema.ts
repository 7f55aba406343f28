/** Postgres schema owned by receipts. */
export const RECEIPTS_SCHEMA = 'receipts';

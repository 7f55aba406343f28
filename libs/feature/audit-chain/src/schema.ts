/** Postgres schema owned by audit-chain. */
export const AUDIT_SCHEMA = 'audit';

/** Postgres schema owned by the transfer register (hosted by audit-chain; the schema name predates the move). */
export const RESIDENCY_SCHEMA = 'residency';

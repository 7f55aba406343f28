/** Postgres schema owned by the transfer register (residency-router). */
export const RESIDENCY_SCHEMA = 'residency';

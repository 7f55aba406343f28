/** Postgres schema owned by decision-gateway. */
export const GATEWAY_SCHEMA = 'gateway';

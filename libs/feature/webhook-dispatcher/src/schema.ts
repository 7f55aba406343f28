/** Postgres schema owned by webhook-dispatcher. */
export const WEBHOOKS_SCHEMA = 'webhooks';

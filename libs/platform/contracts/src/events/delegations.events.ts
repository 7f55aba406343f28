import { DelegationGrantChangedSchema } from '../gen/svc/events/v1/delegations_pb';

/** Events of delegation grants (decision-gateway); audit-chain records every `delegation.*` event. */
export const DELEGATIONS_EVENTS = {
  'delegation.offered': { schema: DelegationGrantChangedSchema, version: 1 },
  'delegation.accepted': { schema: DelegationGrantChangedSchema, version: 1 },
  'delegation.revoked': { schema: DelegationGrantChangedSchema, version: 1 },
} as const;

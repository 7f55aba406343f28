import { DelegationGrantChangedSchema } from '../gen/svc/events/v1/delegations_pb';
import type { EventEntry } from './event-entry';

/** Events of delegation grants (decision-gateway). */
export const DELEGATIONS_EVENTS = {
  'delegation.offered': {
    schema: DelegationGrantChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A delegation grant was offered to a delegate (or created by an operator on reviewed evidence)',
  },
  'delegation.accepted': {
    schema: DelegationGrantChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'The delegate accepted a delegation grant',
  },
  'delegation.revoked': {
    schema: DelegationGrantChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A delegation grant was revoked by the principal or the delegate',
  },
} as const satisfies Record<string, EventEntry>;

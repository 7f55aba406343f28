import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { AuthorityChanged } from '@svc/contracts';
import type { AuthorityBoundsInput, AuthorityInput, PartyInput } from '../record/inputs';
import { UnreceiptableRecord } from './consent-record-input';

/**
 * Language of an authorization record: an authority is created by the application's API, with no
 * interface locale of the principal to state, so the record says `und` (ISO 639 "undetermined")
 * rather than guessing one.
 */
export const UNDETERMINED_LANGUAGE = 'und';

const BOUND_KEYS = [
  'scope_bounds',
  'action_bounds',
  'value_bounds',
  'time_bounds',
  'escalation_bounds',
  'reputation_bounds',
  'jurisdiction_bounds',
] as const;

/** The authority's stored bounds (canonical JSON) as receipt bounds: `oap_sequence_bounds` is written as `sequence_bounds`. */
export function authorityBounds(boundsJson: string): AuthorityBoundsInput {
  let stored: unknown;
  try {
    stored = JSON.parse(boundsJson || '{}');
  } catch {
    throw new UnreceiptableRecord('bounds_json is not JSON');
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new UnreceiptableRecord('bounds_json is not an object');
  const source = stored as Record<string, unknown>;
  const bounds: AuthorityBoundsInput = {};
  const object = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  for (const key of BOUND_KEYS) {
    const value = object(source[key]);
    if (value) bounds[key] = value;
  }
  const sequence = object(source.oap_sequence_bounds);
  if (sequence) bounds.sequence_bounds = sequence;
  return bounds;
}

/**
 * The frozen input of an authority published by oap-authorizer (`authority.created`): its bounds,
 * window, cooling-off, declared purposes (the purpose names stand as their labels: that is all the
 * authority declares), the controller and the agent as parties. The capability manifest is not
 * stated: the platform's manifest hash covers scopes and actions, not the fields the receipt's
 * `capability_manifest` hash is defined over.
 */
export function authorityInput(event: AuthorityChanged, controller: PartyInput, pseudonym: string): AuthorityInput {
  if (!event.withdrawalUrl) throw new UnreceiptableRecord('authority.created carries no withdrawal_url');
  const grantedAt = event.createdAt || (event.meta?.occurredAt ? timestampDate(event.meta.occurredAt).toISOString() : '');
  if (!grantedAt) throw new UnreceiptableRecord('authority.created carries no creation time');
  const agent: PartyInput = {
    party_id: event.agentId,
    // The agent's name is what its operator registered: declared, not verified.
    party_name: event.agentName || event.agentId,
    party_role: 'agent',
    party_type: 'software_agent',
    provenance: 'declared',
  };
  return {
    kind: 'authorization_record',
    record_id: event.authorityId,
    application_id: event.meta?.applicationId ?? '',
    pii_principal_id: pseudonym,
    language: UNDETERMINED_LANGUAGE,
    purposes: [...new Set(event.purposes)].map((purpose) => ({ purpose_id: purpose, label: purpose })),
    bounds: authorityBounds(event.boundsJson),
    valid_from: event.validFrom || undefined,
    valid_until: event.validUntil || undefined,
    cooling_off_seconds: event.coolingOffSeconds,
    withdrawal_method: event.withdrawalUrl,
    granted_at: grantedAt,
    parties: [controller, agent],
    processing: {},
    extensions: { recorded_at: grantedAt },
  };
}

import { buildParties, buildPiiProcessing, definedOnly, invalidInput, isoTime, secondsAsDuration } from './build-common';
import type { AuthorityInput } from './inputs';
import type { AuthoritySection, EventRow, ExtensionsSection, ReceiptDocument } from './receipt-document';
import { RECEIPT_CONFORMS_TO, RECEIPT_SCHEMA_VERSION } from './versions';

/**
 * Builds the frozen `authorization_record` of an authority (architecture brief: one frozen record
 * per delegated authority). Each bound is written exactly when the authority enforces it;
 * `valid_until` is omitted for an open-ended authority; `cooling_off` appears only when an
 * activation delay existed. Never carries `agent_disclosures` or `signature_evidence`.
 */
export function buildAuthorizationRecord(input: AuthorityInput): ReceiptDocument {
  if (!input.pii_principal_id) invalidInput('pii_principal_id', 'An authorization record names its principal');
  const validFrom = input.valid_from ? isoTime(input.valid_from, 'valid_from') : undefined;
  const validUntil = input.valid_until ? isoTime(input.valid_until, 'valid_until') : undefined;
  if (validFrom && validUntil && validUntil <= validFrom) invalidInput('valid_until', 'valid_until must be after valid_from');
  const cooling = input.cooling_off_seconds ?? 0;
  if (!Number.isFinite(cooling) || cooling < 0) invalidInput('cooling_off_seconds', 'cooling_off_seconds must be zero or more');
  const authority = definedOnly<AuthoritySection>({
    ...copyBounds(input.bounds),
    valid_from: validFrom,
    valid_until: validUntil,
    cooling_off: cooling > 0 ? secondsAsDuration(cooling) : undefined,
    withdrawal_method: input.withdrawal_method,
  });
  const events: EventRow[] = [];
  if (input.requested_at) {
    events.push({
      event_time: isoTime(input.requested_at, 'requested_at'),
      entity_id: input.pii_principal_id,
      event_type: 'explicit',
      event_state: 'authority requested',
    });
  }
  events.push({
    event_time: isoTime(input.granted_at, 'granted_at'),
    entity_id: input.pii_principal_id,
    event_type: 'explicit',
    event_state: 'authority granted',
  });
  const ext = input.extensions ?? {};
  const extensions = definedOnly<ExtensionsSection>({
    scopes: ext.scopes?.length ? [...ext.scopes] : undefined,
    sensitive: ext.sensitive,
    accountability_record: ext.accountability_record,
    grant_integrity: ext.grant_integrity
      ? { content_sha256: ext.grant_integrity.content_sha256, key_versions: [...ext.grant_integrity.key_versions] }
      : undefined,
    delegation_chain_root: ext.delegation_chain_root,
    capability_manifest: ext.capability_manifest ? { ...ext.capability_manifest } : undefined,
    captured_at: ext.captured_at ? isoTime(ext.captured_at, 'extensions.captured_at') : undefined,
    recorded_at: ext.recorded_at ? isoTime(ext.recorded_at, 'extensions.recorded_at') : undefined,
  });
  return definedOnly<ReceiptDocument>({
    record: {
      schema_version: RECEIPT_SCHEMA_VERSION,
      conforms_to: RECEIPT_CONFORMS_TO,
      record_id: input.record_id,
      record_type: 'authorization_record',
      pii_principal_id: input.pii_principal_id,
    },
    pii_processing: buildPiiProcessing(
      input.language,
      input.purposes.map((p) => definedOnly({ purpose_id: p.purpose_id, label: p.label, lawful_basis: p.lawful_basis })),
      input.processing,
    ),
    party_identification: buildParties(input.parties),
    authority,
    event: events,
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}

function copyBounds(bounds: AuthorityInput['bounds']): Partial<AuthoritySection> {
  // A deep copy through JSON: the frozen document must not share objects with the caller's input.
  const copy = (value: Record<string, unknown> | undefined) =>
    value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
  return {
    scope_bounds: copy(bounds.scope_bounds),
    action_bounds: copy(bounds.action_bounds),
    value_bounds: copy(bounds.value_bounds),
    time_bounds: copy(bounds.time_bounds),
    escalation_bounds: copy(bounds.escalation_bounds),
    reputation_bounds: copy(bounds.reputation_bounds),
    jurisdiction_bounds: copy(bounds.jurisdiction_bounds),
    sequence_bounds: copy(bounds.sequence_bounds),
  };
}

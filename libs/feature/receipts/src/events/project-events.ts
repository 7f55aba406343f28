import type { EventRow, EventState, ReceiptDocument } from '../record/receipt-document';
import { addIsoDuration } from './iso-duration';
import type { ReceiptTransition, TransferTransition } from './transitions';

type EventTransition = Exclude<ReceiptTransition, TransferTransition>;

/** Receipt status derived from the event projection. */
export type ReceiptStatus =
  /** consent: at least one purpose still granted; authorization: usable. */
  | 'active'
  /** consent: some granted purposes withdrawn, others not. */
  | 'partially_withdrawn'
  | 'withdrawn'
  | 'expired'
  /** consent record on which every purpose was declined. */
  | 'declined'
  /** notice record. */
  | 'shown'
  | 'acknowledged'
  /** authorization: before `valid_from` (plus cooling-off). */
  | 'pending'
  | 'suspended'
  | 'revoked'
  /** approval decision (an authorization record with no standing authority): its outcome. */
  | 'approved'
  | 'denied'
  | 'countered';

/** Outcome statuses of an approval decision's record, by its outcome row. */
const APPROVAL_STATUSES: Partial<Record<EventState, ReceiptStatus>> = {
  'approval granted': 'approved',
  'approval denied': 'denied',
  'approval countered': 'countered',
};

/** A rendered receipt: the frozen document with appended events, and the derived status. */
export interface ReceiptProjection {
  document: ReceiptDocument;
  status: ReceiptStatus;
  /** Purposes withdrawn one by one (consent records). */
  withdrawnPurposes: string[];
}

const STATE_BY_TRANSITION: Record<EventTransition['type'], EventState> = {
  consent_withdrawn: 'consent withdrawn',
  objection_recorded: 'objection recorded',
  consent_expired: 'consent expired',
  authority_suspended: 'authority suspended',
  authority_resumed: 'authority resumed',
  authority_revoked: 'authority revoked',
  authority_expired: 'authority expired',
  authority_exercised: 'authority exercised',
  approval_requested: 'approval requested',
  approval_granted: 'approval granted',
  approval_denied: 'approval denied',
  approval_countered: 'approval countered',
};

/** The acting entity when a transition names none: the principal, or the record id on anonymous records. */
function defaultEntity(document: ReceiptDocument): string {
  return document.record.pii_principal_id ?? document.record.record_id;
}

function rowOf(document: ReceiptDocument, transition: EventTransition): EventRow {
  const base = { event_time: new Date(transition.at).toISOString(), event_state: STATE_BY_TRANSITION[transition.type] };
  const entity = 'entity_id' in transition && transition.entity_id ? transition.entity_id : defaultEntity(document);
  switch (transition.type) {
    case 'consent_withdrawn':
    case 'objection_recorded':
      return {
        ...base,
        entity_id: entity,
        event_type: 'explicit',
        ...(transition.purpose_id ? { purpose_id: transition.purpose_id } : {}),
        ...('acted_by' in transition && transition.acted_by ? { acted_by: { ...transition.acted_by } } : {}),
        event_channel: transition.channel ?? 'unspecified',
      };
    case 'consent_expired':
      return { ...base, entity_id: entity, event_type: 'regular', event_channel: transition.channel ?? 'end_of_term' };
    case 'authority_revoked':
      return { ...base, entity_id: entity, event_type: 'explicit', event_channel: transition.channel ?? 'unspecified' };
    case 'authority_suspended':
    case 'authority_resumed':
      return { ...base, entity_id: entity, event_type: 'explicit' };
    case 'authority_expired':
      return { ...base, entity_id: entity, event_type: 'regular' };
    case 'authority_exercised':
      return {
        ...base,
        entity_id: entity,
        event_type: 'explicit',
        ...(transition.occurrences && transition.occurrences > 1 ? { occurrences: transition.occurrences } : {}),
      };
    case 'approval_requested':
    case 'approval_granted':
    case 'approval_denied':
    case 'approval_countered':
      return { ...base, entity_id: entity, event_type: 'explicit', approval_id: transition.approval_id };
  }
}

const byTime = (a: EventRow, b: EventRow): number => (a.event_time < b.event_time ? -1 : a.event_time > b.event_time ? 1 : 0);

/**
 * Renders a frozen document with its post-decision transitions at `now` (spec, Captured consent
 * and receipts). The frozen rows are copied untouched and stay first; transitions follow in time
 * order (stable for equal times). Two kinds of row are derived rather than stored, so they appear
 * the moment they become true without anyone writing them: `consent expired` at the end of a
 * given consent's `validity_duration` (unless the consent was wholly withdrawn or already expired
 * before), and `authority expired` at `valid_until`. Any `authority expired` at or after a
 * revocation is suppressed: a revoked authority does not expire again. Rows dated after `now`
 * (clock skew of the writer) are not shown yet. The input document is never modified.
 */
export function projectReceipt(frozen: ReceiptDocument, transitions: readonly ReceiptTransition[], now: Date): ReceiptProjection {
  const nowIso = now.toISOString();
  const eventTransitions = transitions.filter((t): t is EventTransition => t.type !== 'transfer_recorded');
  const appended = eventTransitions.map((t) => rowOf(frozen, t)).filter((row) => row.event_time <= nowIso);
  const type = frozen.record.record_type;
  if (type === 'consent_record') appended.push(...derivedConsentExpiry(frozen, appended, nowIso));
  if (type === 'authorization_record') appended.push(...derivedAuthorityExpiry(frozen, appended, nowIso));
  let rows = [...appended].sort(byTime);
  if (type === 'authorization_record') {
    const revokedAt = rows.find((r) => r.event_state === 'authority revoked')?.event_time;
    if (revokedAt !== undefined) rows = rows.filter((r) => !(r.event_state === 'authority expired' && r.event_time >= revokedAt));
  }
  const document: ReceiptDocument = structuredClone(frozen);
  document.event = [...document.event, ...rows];
  const locations = processingLocations(frozen, transitions, nowIso);
  if (locations.length > 0) document.pii_processing.processing_locations = locations;
  // An objection to a purpose stops its processing as a withdrawal does.
  const withdrawnPurposes = [
    ...new Set(
      rows
        .filter((r) => (r.event_state === 'consent withdrawn' || r.event_state === 'objection recorded') && r.purpose_id)
        .map((r) => r.purpose_id as string),
    ),
  ];
  return { document, status: deriveStatus(document, withdrawnPurposes, nowIso), withdrawnPurposes };
}

/**
 * Processing locations: the frozen ones plus one per recorded crossing (country, basis and
 * register id), each country and basis once. Empty when no lawful transfer was recorded, so the
 * field stays absent (absence rule).
 */
function processingLocations(
  frozen: ReceiptDocument,
  transitions: readonly ReceiptTransition[],
  nowIso: string,
): NonNullable<ReceiptDocument['pii_processing']['processing_locations']> {
  const result = [...(frozen.pii_processing.processing_locations ?? [])];
  for (const transition of transitions) {
    if (transition.type !== 'transfer_recorded' || new Date(transition.at).toISOString() > nowIso) continue;
    if (result.some((l) => l.country === transition.country && l.transfer_basis === transition.transfer_basis)) continue;
    result.push({
      country: transition.country,
      transfer_basis: transition.transfer_basis,
      transfer_register_id: transition.transfer_register_id,
    });
  }
  return result;
}

function derivedConsentExpiry(frozen: ReceiptDocument, appended: readonly EventRow[], nowIso: string): EventRow[] {
  const given = frozen.event.find((r) => r.event_state === 'consent given' && r.validity_duration);
  if (!given?.validity_duration) return [];
  const end = addIsoDuration(new Date(given.event_time), given.validity_duration)?.toISOString();
  if (!end || end > nowIso) return [];
  const endedBefore = appended.some(
    (r) => r.event_time <= end && (r.event_state === 'consent expired' || (r.event_state === 'consent withdrawn' && !r.purpose_id)),
  );
  if (endedBefore) return [];
  return [
    {
      event_time: end,
      entity_id: defaultEntity(frozen),
      event_type: 'regular',
      event_state: 'consent expired',
      event_channel: 'end_of_term',
    },
  ];
}

function derivedAuthorityExpiry(frozen: ReceiptDocument, appended: readonly EventRow[], nowIso: string): EventRow[] {
  const until = frozen.authority?.valid_until;
  if (!until || until > nowIso) return [];
  if (appended.some((r) => r.event_state === 'authority expired')) return [];
  return [{ event_time: until, entity_id: defaultEntity(frozen), event_type: 'regular', event_state: 'authority expired' }];
}

/** The status a person would read off the event rows (first terminal event wins). */
function deriveStatus(document: ReceiptDocument, withdrawnPurposes: readonly string[], nowIso: string): ReceiptStatus {
  const rows = document.event;
  switch (document.record.record_type) {
    case 'notice_record':
      return rows.some((r) => r.event_state === 'notice acknowledged') ? 'acknowledged' : 'shown';
    case 'consent_record': {
      if (!rows.some((r) => r.event_state === 'consent given')) return 'declined';
      for (const row of rows) {
        if (row.event_state === 'consent withdrawn' && !row.purpose_id) return 'withdrawn';
        if (row.event_state === 'consent expired') return 'expired';
      }
      const granted = document.pii_processing.purposes.map((p) => p.purpose_id);
      const remaining = granted.filter((id) => !withdrawnPurposes.includes(id));
      if (granted.length > 0 && remaining.length === 0) return 'withdrawn';
      return remaining.length < granted.length ? 'partially_withdrawn' : 'active';
    }
    case 'authorization_record': {
      // An approval decision's record: no `authority granted` row, the outcome row is the status.
      if (!rows.some((r) => r.event_state === 'authority granted')) {
        const outcome = rows.map((r) => APPROVAL_STATUSES[r.event_state]).find((s) => s !== undefined);
        if (outcome) return outcome;
      }
      let status: ReceiptStatus = 'active';
      for (const row of rows) {
        if (row.event_state === 'authority revoked') return 'revoked';
        if (row.event_state === 'authority expired') return 'expired';
        if (row.event_state === 'authority suspended') status = 'suspended';
        if (row.event_state === 'authority resumed') status = 'active';
      }
      const from = document.authority?.valid_from;
      if (status === 'active' && from) {
        const activeAt = document.authority?.cooling_off
          ? addIsoDuration(new Date(from), document.authority.cooling_off)?.toISOString()
          : from;
        if (activeAt && activeAt > nowIso) return 'pending';
      }
      return status;
    }
  }
}

import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { ConsentRecorded } from '@svc/contracts';
import type { CollectionFacts, ConsentRecordInput, NoticeContent, PartyInput, PrincipalInput } from '../record/inputs';
import { noticeHash } from '../record/notice-hash';
import { COLLECTION_CHANNELS, LAWFUL_BASES, RENDERED_CHANNELS, type CollectionChannel, type LawfulBasis } from '../record/receipt-document';

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** `extensions.delivery_mode` values; consent.recorded carries one for decision-session records. */
const DELIVERY_MODES = ['redirect', 'embed', 'popup', 'link'] as const;

/** Why a `consent.recorded` event cannot become a truthful receipt (logged, then skipped). */
export class UnreceiptableRecord extends Error {}

/**
 * The flow version a record was made against, as far as its receipt shows it: what
 * `consent.recorded` carries (`notice`), or what the flows RPC answers for an event without it.
 */
export interface RecordedFlowVersion {
  flowId: string;
  version: number;
  locale: string;
  title: string;
  description: string;
  policyUrl: string;
  consentDuration: string;
  purposes: ReadonlyArray<{ key: string; label: string; description: string; mechanism: string; required: boolean }>;
}

/** The flow version `consent.recorded` carries; undefined for an event written before it did. */
export function flowOfEvent(event: ConsentRecorded): RecordedFlowVersion | undefined {
  if (!event.notice) return undefined;
  const { locale, title, description, policyUrl, purposes, consentDuration } = event.notice;
  return { flowId: event.flowId, version: event.flowVersion, locale, title, description, policyUrl, purposes, consentDuration };
}

/** The wording of the flow version a record was made against. */
export function noticeContent(flow: RecordedFlowVersion): NoticeContent {
  return {
    locale: flow.locale,
    title: flow.title,
    description: flow.description,
    policy_url: flow.policyUrl || null,
    purposes: flow.purposes.map((p) => ({
      name: p.key,
      label: p.label,
      description: p.description,
      mechanism: lawfulBasis(p.mechanism),
      required: p.required,
    })),
  };
}

/**
 * The receipt's `jurisdiction`: what decision-gateway derives from the application's enabled
 * regime modules (`gateway.get_application`), or absent (the document then says `unspecified`)
 * when the application is unknown or no regime can be stated.
 */
export function declaredJurisdiction(application: { found: boolean; jurisdiction?: string }): string | undefined {
  return application.found && application.jurisdiction && application.jurisdiction !== 'unspecified' ? application.jurisdiction : undefined;
}

/** The controller party: the application, by its display name when the platform knows it. */
export function controllerParty(applicationId: string, name: string | undefined): PartyInput {
  return name
    ? { party_id: applicationId, party_name: name, party_role: 'controller', party_type: 'organization', provenance: 'display_name' }
    : { party_id: applicationId, party_name: applicationId, party_role: 'controller', party_type: 'organization', provenance: 'declared' };
}

/**
 * The frozen input of a consent record published by consent-records (`consent.recorded`): the
 * record's decisions with the labels the flow version showed, that version's wording as the notice,
 * and only the collection facts the event states (absence rule: an empty event field is omitted).
 * `notice_digest` (the organisation's digest of what it showed) becomes `wording_drift` when it is
 * a SHA-256 the notice hash can be compared with.
 */
export function consentRecordInput(
  event: ConsentRecorded,
  flow: RecordedFlowVersion,
  controller: PartyInput,
  principal: PrincipalInput,
): ConsentRecordInput {
  const applicationId = event.meta?.applicationId ?? '';
  const notice = noticeContent(flow);
  const labels = new Map(notice.purposes.map((p) => [p.name, p]));
  const decisions = event.outcomes.map((outcome) => {
    const shown = labels.get(outcome.purpose);
    if (!shown) throw new UnreceiptableRecord(`purpose ${outcome.purpose} is not part of ${flow.flowId} v${flow.version}`);
    if (outcome.decision !== 'granted' && outcome.decision !== 'declined')
      throw new UnreceiptableRecord(`purpose ${outcome.purpose} has decision ${outcome.decision}`);
    return { purpose_id: outcome.purpose, label: shown.label, decision: outcome.decision, lawful_basis: shown.mechanism } as const;
  });
  const capturedAt = iso(event.capturedAt);
  return {
    kind: 'consent_record',
    record_id: event.recordId,
    application_id: applicationId,
    principal,
    notice: { reference: `${flow.flowId}@v${flow.version}`, content: notice },
    notice_url: notice.policy_url ?? undefined,
    decisions,
    given_at: capturedAt ?? missing('captured_at'),
    validity_duration: flow.consentDuration || undefined,
    record_reference: event.previousRecordId || undefined,
    parties: [controller],
    processing: {},
    collection: collectionFacts(event, notice, capturedAt),
  };
}

function collectionFacts(event: ConsentRecorded, notice: NoticeContent, capturedAt: string | undefined): CollectionFacts {
  const channel = (COLLECTION_CHANNELS as readonly string[]).includes(event.collectionChannel)
    ? (event.collectionChannel as CollectionChannel)
    : undefined;
  const facts: CollectionFacts = {
    collection_channel: channel,
    consent_flow_id: event.flowId,
    captured_at: capturedAt,
    recorded_at: iso(event.recordedAt),
  };
  if (event.collectionPlatform) facts.collection_platform = event.collectionPlatform;
  if ((DELIVERY_MODES as readonly string[]).includes(event.deliveryMode))
    facts.delivery_mode = event.deliveryMode as (typeof DELIVERY_MODES)[number];
  const rendered = event.renderingEvidenceDigest.toLowerCase();
  if (channel && RENDERED_CHANNELS.includes(channel) && SHA256_HEX.test(rendered)) facts.rendering_evidence = { digest: rendered };
  const presented = digestHex(event.noticeDigest);
  if (presented) {
    const drifted = presented !== noticeHash(notice);
    facts.wording_drift = drifted ? { detected: true, presented_hash: presented } : { detected: false };
  }
  return facts;
}

/** The hex of a `sha256:<hex>` (or bare hex) digest; undefined for anything that cannot be compared. */
function digestHex(digest: string): string | undefined {
  const match = /^(?:sha-?256:)?([0-9a-fA-F]{64})$/.exec(digest);
  return match ? match[1]!.toLowerCase() : undefined;
}

function iso(timestamp: Timestamp | undefined): string | undefined {
  return timestamp ? timestampDate(timestamp).toISOString() : undefined;
}

function missing(field: string): never {
  throw new UnreceiptableRecord(`consent.recorded carries no ${field}`);
}

function lawfulBasis(mechanism: string): LawfulBasis {
  if ((LAWFUL_BASES as readonly string[]).includes(mechanism)) return mechanism as LawfulBasis;
  throw new UnreceiptableRecord(`flow purpose mechanism "${mechanism}" is not a lawful basis`);
}

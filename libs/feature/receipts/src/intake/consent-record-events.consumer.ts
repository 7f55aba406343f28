import { Controller } from '@nestjs/common';
import { BusConnection, EventConsumer, RpcClient, type DeliveredEvent } from '@svc/bus';
import {
  ConsentPurposeRevokedSchema,
  ConsentRecordExpiredSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
  decodeSealedEvent,
  type ActedBy,
} from '@svc/contracts';
import type { ActedByClaim, ReceiptTransition } from '../events/transitions';
import type { ConsentRecordInput, PrincipalInput } from '../record/inputs';
import { EVENT_CHANNELS, type EventChannel } from '../record/receipt-document';
import { CredentialIssuer } from '../credentials/credential-issuer';
import { AppendReceiptTransition } from '../use-cases/append-receipt-transition.use-case';
import { FreezeReceipt } from '../use-cases/freeze-receipt.use-case';
import {
  UnreceiptableRecord,
  consentRecordInput,
  controllerParty,
  declaredJurisdiction,
  flowOfEvent,
  type RecordedFlowVersion,
} from './consent-record-input';
import { applicationOfEvent } from './event-application';
import { eventTime } from './event-time';
import { PrincipalPseudonyms, subjectReference } from './principal-pseudonyms';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-consent-records';

/** Flow versions fetched for older events kept in memory: they are immutable, and an import brings many records of one version. */
const FLOW_VERSION_CACHE_SIZE = 256;
/** Records frozen at once: enough to keep up with the record rate, few enough to leave the shared pool to requests. */
const RECORDS_FROZEN_AT_ONCE = 4;

/**
 * Freezes the receipt of every consent record consent-records writes (`consent.recorded`: Record
 * API, imports, committed captures) and appends its withdrawals (`consent.purpose_revoked`,
 * `consent.record_revoked`) as `consent withdrawn` events, revoking the record's consent-receipt
 * credentials with them, and their expiries (`consent.expired`, the retention sweep) as
 * `consent expired` events. A receipt is built from the event alone: it carries the wording of the
 * record's flow version (`notice`) and the application's name and jurisdiction (`application`).
 * Receipts appear shortly after the record commits. The session-shaped `consent.*` events of
 * decision-gateway are not records.
 */
@Controller()
export class ConsentRecordEvents {
  private readonly flowVersions = new Map<string, RecordedFlowVersion>();

  constructor(
    private readonly bus: BusConnection,
    private readonly rpc: RpcClient,
    private readonly intake: ReceiptIntake,
    private readonly pseudonyms: PrincipalPseudonyms,
    private readonly freeze: FreezeReceipt,
    private readonly append: AppendReceiptTransition,
    private readonly credentials: CredentialIssuer,
  ) {}

  /** Applies one event; false when it was not a record event, was seen before, or was refused. */
  // Records are frozen a few at a time (each its own receipt; a soak at ~130 records/s outran one
  // at a time); every other event, a withdrawal of a receipt, waits for those before it.
  @EventConsumer(
    { durable: CONSUMER, types: 'consent.>' },
    { ...RECEIPT_INTAKE_DELIVERY, concurrency: { limit: RECORDS_FROZEN_AT_ONCE, types: ['consent.recorded'] } },
  )
  async handle(event: DeliveredEvent): Promise<boolean> {
    switch (event.eventType) {
      case 'consent.recorded':
        return this.recorded(event);
      case 'consent.purpose_revoked': {
        const revoked = decodeSealedEvent(ConsentPurposeRevokedSchema, event.data, this.bus.personalData);
        return this.withdrawn(event, revoked.meta?.applicationId ?? '', revoked.recordId, () => ({
          // An objection (a data subject request) is its own event state; it ends the purpose too.
          type: revoked.objection ? 'objection_recorded' : 'consent_withdrawn',
          at: eventTime(revoked.revokedAt, revoked.meta),
          purpose_id: revoked.purpose,
          ...withdrawalActor(revoked.channel, revoked.meta?.applicationId ?? ''),
          ...actedByClaim(revoked.actedBy),
        }));
      }
      case 'consent.record_revoked': {
        const revoked = decodeSealedEvent(ConsentRecordRevokedSchema, event.data, this.bus.personalData);
        return this.withdrawn(event, revoked.meta?.applicationId ?? '', revoked.recordId, () => ({
          type: 'consent_withdrawn',
          at: eventTime(revoked.revokedAt, revoked.meta),
          ...withdrawalActor(revoked.channel, revoked.meta?.applicationId ?? ''),
          ...actedByClaim(revoked.actedBy),
        }));
      }
      case 'consent.expired': {
        // The retention sweep ended the consent (its term, or a data policy's retention): the
        // `consent expired` event state at the end of term, which the status derives from.
        const expired = decodeSealedEvent(ConsentRecordExpiredSchema, event.data, this.bus.personalData);
        return this.withdrawn(event, expired.meta?.applicationId ?? '', expired.recordId, () => ({
          type: 'consent_expired',
          at: eventTime(expired.expiredAt, expired.meta),
          channel: 'end_of_term',
        }));
      }
      default:
        return false;
    }
  }

  private async recorded(event: DeliveredEvent): Promise<boolean> {
    const recorded = decodeSealedEvent(ConsentRecordedSchema, event.data, this.bus.personalData);
    const applicationId = recorded.meta?.applicationId ?? '';
    if (!applicationId || !recorded.recordId) return false;
    if (await this.intake.seen(CONSUMER, event)) return false;
    let input: ConsentRecordInput;
    try {
      // Upgrade path: an event written before consent.recorded carried its notice asks for the version.
      const flow = flowOfEvent(recorded) ?? (await this.flowVersion(applicationId, recorded.flowId, recorded.flowVersion));
      const application = await applicationOfEvent(this.rpc, applicationId, recorded.application);
      const reference = subjectReference({ email: recorded.subjectEmail, externalId: recorded.subjectExternalId });
      const principal: PrincipalInput = reference
        ? { kind: 'identified', pii_principal_id: await this.pseudonyms.pseudonym(applicationId, reference) }
        : { kind: 'anonymous' };
      input = consentRecordInput(
        recorded,
        flow,
        controllerParty(applicationId, application.found ? application.name : undefined),
        principal,
      );
      const jurisdiction = declaredJurisdiction(application);
      if (jurisdiction) input = { ...input, processing: { ...input.processing, jurisdiction } };
    } catch (error) {
      if (error instanceof UnreceiptableRecord) return this.intake.skip(CONSUMER, event, error);
      throw error;
    }
    return this.intake.once(CONSUMER, event, async (manager) => (await this.freeze.execute(input, 'consent-records', manager)).created);
  }

  /** The wording of a flow version, for an event without it; versions never change, so a fetched one is kept. */
  private async flowVersion(applicationId: string, flowId: string, version: number): Promise<RecordedFlowVersion> {
    const key = `${applicationId}:${flowId}:${version}`;
    const cached = this.flowVersions.get(key);
    if (cached) return cached;
    const flow = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version });
    if (!flow.found || flow.version !== version) throw new UnreceiptableRecord(`flow ${flowId} v${version} is unknown`);
    if (this.flowVersions.size >= FLOW_VERSION_CACHE_SIZE) this.flowVersions.delete(this.flowVersions.keys().next().value!);
    this.flowVersions.set(key, flow);
    return flow;
  }

  private async withdrawn(
    event: DeliveredEvent,
    applicationId: string,
    recordId: string,
    transition: () => ReceiptTransition,
  ): Promise<boolean> {
    if (!applicationId || !recordId) return false;
    // The record's consent-receipt credentials are revoked (status bit set) in the same transaction.
    return this.intake.once(CONSUMER, event, async (manager) => {
      const appended = await this.append.execute(applicationId, recordId, transition(), event.id, manager);
      await this.credentials.revokeForRecord(manager, applicationId, recordId);
      return appended;
    });
  }
}

const DELEGATION_TYPES: ReadonlyArray<ActedByClaim['delegation_type']> = ['guardian', 'caregiver', 'power_of_attorney', 'it_admin', 'peer'];

/** The receipt's `acted_by` of a withdrawal a delegate made for the principal; nothing otherwise. */
function actedByClaim(actedBy: ActedBy | undefined): { acted_by?: ActedByClaim } {
  if (!actedBy?.delegateId || !actedBy.delegationGrantId) return {};
  const type = DELEGATION_TYPES.find((t) => t === actedBy.delegationType);
  return type
    ? { acted_by: { delegate_id: actedBy.delegateId, delegation_grant_id: actedBy.delegationGrantId, delegation_type: type } }
    : {};
}

/**
 * The event channel, and who acted: the organisation when it withdrew through its own systems,
 * otherwise the person (the record's principal, the default entity). An unknown channel is omitted.
 */
function withdrawalActor(channel: string, applicationId: string): { channel?: EventChannel; entity_id?: string } {
  if (!(EVENT_CHANNELS as readonly string[]).includes(channel)) return {};
  return channel === 'organisation' ? { channel, entity_id: applicationId } : { channel: channel as EventChannel };
}

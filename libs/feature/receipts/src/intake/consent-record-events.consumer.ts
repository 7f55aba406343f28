import { Controller } from '@nestjs/common';
import { BusConnection, EventBatchConsumer, RpcClient, type BatchOutcomes, type DeliveredEvent } from '@svc/bus';
import { inBatchSpan } from '@svc/telemetry';
import {
  ConsentPurposeRevokedSchema,
  ConsentRecordExpiredSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
  decodeSealedEvent,
  type ActedBy,
  type ConsentRecorded,
} from '@svc/contracts';
import type { ActedByClaim, ReceiptTransition } from '../events/transitions';
import type { PrincipalInput } from '../record/inputs';
import { EVENT_CHANNELS, type EventChannel } from '../record/receipt-document';
import { CredentialIssuer } from '../credentials/credential-issuer';
import { AppendReceiptTransition } from '../use-cases/append-receipt-transition.use-case';
import { FreezeReceipt, type PreparedReceipt } from '../use-cases/freeze-receipt.use-case';
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
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY, isTransient, type IntakeJob } from './receipt-intake';

const CONSUMER = 'receipts-consent-records';

/** Flow versions fetched for older events kept in memory: they are immutable, and an import brings many records of one version. */
const FLOW_VERSION_CACHE_SIZE = 256;
/**
 * Events handed over at once. Their records are frozen in one transaction (one connection of the
 * shared pool for its length, whatever the record rate) with a handful of statements for the
 * whole batch: the inbox check, the pseudonyms' secrets, the inbox marks, then one insert per
 * receipt.
 */
const EVENTS_PER_BATCH = 64;

type Outcome = PromiseSettledResult<boolean>;
const fulfilled = (value: boolean): Outcome => ({ status: 'fulfilled', value });
const rejected = (reason: unknown): Outcome => ({ status: 'rejected', reason });

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

  /**
   * The durable's handler. The batch's records are frozen together ({@link recorded}); every other
   * event, a withdrawal or an expiry of a receipt, is applied after them, one at a time in stream
   * order, so a withdrawal finds the receipt a record before it in the batch froze. Each event
   * gets its own outcome: only an event whose failure may heal is redelivered.
   */
  @EventBatchConsumer({ durable: CONSUMER, types: 'consent.>' }, { ...RECEIPT_INTAKE_DELIVERY, batch: EVENTS_PER_BATCH })
  async handleBatch(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    const outcomes: Outcome[] = events.map(() => fulfilled(false));
    const records = [...events.keys()].filter((index) => events[index]!.eventType === 'consent.recorded');
    const recorded = records.map((index) => events[index]!);
    // The batch's statements are traced once, under the first record's consumer span and linked to every other.
    const frozen =
      recorded.length === 0
        ? []
        : await inBatchSpan(
            'receipts consent record batch',
            recorded.map((event) => event.trace),
            { 'db.system.name': 'postgresql', 'messaging.batch.message_count': recorded.length },
            () => this.recorded(recorded),
          );
    records.forEach((index, n) => (outcomes[index] = frozen[n]!));
    for (const [index, event] of events.entries()) {
      if (event.eventType === 'consent.recorded') continue;
      outcomes[index] = await this.changed(event).then(fulfilled, rejected);
    }
    return outcomes;
  }

  /** Applies one event; false when it was not a receipt's event, was seen before, or was refused. Throws when it may heal on redelivery. */
  async handle(event: DeliveredEvent): Promise<boolean> {
    const [outcome] = await this.handleBatch([event]);
    if (outcome!.status === 'rejected') throw outcome!.reason;
    return outcome!.value as boolean;
  }

  /** A withdrawal or an expiry appended to its record's receipt. */
  private async changed(event: DeliveredEvent): Promise<boolean> {
    switch (event.eventType) {
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

  /**
   * Freezes the receipts of a batch of `consent.recorded` events; one outcome per event, in order.
   * The inbox is read first, so a redelivered event asks no upstream and creates no pseudonym
   * secret (an erased person's secret is never created again by an old event).
   */
  private async recorded(events: readonly DeliveredEvent[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = events.map(() => fulfilled(false));
    const candidates: Candidate[] = [];
    for (const [index, event] of events.entries()) {
      try {
        const recorded = decodeSealedEvent(ConsentRecordedSchema, event.data, this.bus.personalData);
        if (recorded.meta?.applicationId && recorded.recordId) candidates.push({ index, event, recorded });
      } catch (error) {
        outcomes[index] = rejected(error);
      }
    }
    const fresh = await this.unseen(candidates, outcomes);
    const jobs: Array<IntakeJob & { index: number; receipt?: PreparedReceipt }> = [];
    // A refusal no redelivery heals (an input the receipt cannot state truthfully) is logged and marked processed.
    const refuseOrFail = (candidate: Candidate, error: unknown): void => {
      if (!isTransient(error)) jobs.push({ index: candidate.index, event: candidate.event, refused: error });
      else outcomes[candidate.index] = rejected(error);
    };
    const withContext: Array<Candidate & { context: RecordContext }> = [];
    for (const candidate of fresh) {
      try {
        withContext.push({ ...candidate, context: await this.contextOf(candidate.recorded) });
      } catch (error) {
        refuseOrFail(candidate, error);
      }
    }
    const principals = await this.principalsOf(withContext, outcomes);
    for (const [n, candidate] of withContext.entries()) {
      const principal = principals?.[n];
      if (!principal) continue;
      try {
        const { flow, controller, jurisdiction } = candidate.context;
        const recordInput = consentRecordInput(candidate.recorded, flow, controller, principal);
        const input = jurisdiction ? { ...recordInput, processing: { ...recordInput.processing, jurisdiction } } : recordInput;
        jobs.push({ index: candidate.index, event: candidate.event, receipt: this.freeze.prepare(input) });
      } catch (error) {
        refuseOrFail(candidate, error);
      }
    }
    const committed = await this.intake.onceEach(CONSUMER, jobs, async (manager, todo) =>
      (
        await this.freeze.store(
          manager,
          todo.map((job) => job.receipt!),
          'consent-records',
        )
      ).map((stored) => (stored instanceof Error ? stored : stored.created)),
    );
    jobs.forEach(({ index }, n) => (outcomes[index] = committed[n]!));
    return outcomes;
  }

  /** The candidates not processed before (one inbox read for the batch); when the read fails, each is failed for redelivery. */
  private async unseen(candidates: readonly Candidate[], outcomes: Outcome[]): Promise<Candidate[]> {
    if (candidates.length === 0) return [];
    try {
      const seen = await this.intake.seenAmong(
        CONSUMER,
        candidates.map((c) => c.event),
      );
      return candidates.filter((c) => !seen.has(c.event.id));
    } catch (error) {
      for (const { index } of candidates) outcomes[index] = rejected(error);
      return [];
    }
  }

  /** What a record's receipt takes besides the event: its flow version's wording, its controller and jurisdiction. */
  private async contextOf(recorded: ConsentRecorded): Promise<RecordContext> {
    const applicationId = recorded.meta!.applicationId;
    // Upgrade path: an event written before consent.recorded carried its notice asks for the version.
    const flow = flowOfEvent(recorded) ?? (await this.flowVersion(applicationId, recorded.flowId, recorded.flowVersion));
    const application = await applicationOfEvent(this.rpc, applicationId, recorded.application);
    return {
      flow,
      controller: controllerParty(applicationId, application.found ? application.name : undefined),
      jurisdiction: declaredJurisdiction(application),
    };
  }

  /**
   * The principal of each record: its subject's pseudonym at the application (one statement for
   * the batch's secrets), or anonymous. When the secrets cannot be had, each record is failed for
   * redelivery and nothing is answered.
   */
  private async principalsOf(candidates: readonly Candidate[], outcomes: Outcome[]): Promise<PrincipalInput[] | undefined> {
    const references = candidates.map(({ recorded }) =>
      subjectReference({ email: recorded.subjectEmail, externalId: recorded.subjectExternalId }),
    );
    const subjects = candidates.flatMap(({ recorded }, i) => {
      const reference = references[i];
      return reference ? [{ applicationId: recorded.meta!.applicationId, reference }] : [];
    });
    let pseudonyms: string[];
    try {
      pseudonyms = subjects.length === 0 ? [] : await this.pseudonyms.pseudonyms(subjects);
    } catch (error) {
      for (const { index } of candidates) outcomes[index] = rejected(error);
      return undefined;
    }
    let next = 0;
    return references.map((reference): PrincipalInput =>
      reference ? { kind: 'identified', pii_principal_id: pseudonyms[next++]! } : { kind: 'anonymous' },
    );
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

/** A decoded `consent.recorded` of the batch, with its place in it. */
interface Candidate {
  index: number;
  event: DeliveredEvent;
  recorded: ConsentRecorded;
}

/** What a record's receipt takes besides the event itself. */
interface RecordContext {
  flow: RecordedFlowVersion;
  controller: ReturnType<typeof controllerParty>;
  jurisdiction: string | undefined;
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

import { Controller } from '@nestjs/common';
import { BusConnection, EventConsumer, RpcClient, type DeliveredEvent } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { ApprovalDecidedSchema, decodeSealedEvent, type ApprovalDecided } from '@svc/contracts';
import { sha256Hex } from '@svc/crypto';
import type { ApprovalInput } from '../record/inputs';
import { FreezeReceipt } from '../use-cases/freeze-receipt.use-case';
import { UNDETERMINED_LANGUAGE } from './authority-input';
import { UnreceiptableRecord, controllerParty, declaredJurisdiction } from './consent-record-input';
import { applicationOfEvent } from './event-application';
import { eventTime } from './event-time';
import { PrincipalPseudonyms } from './principal-pseudonyms';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-approval-decisions';

/** Outcome event types of decision-gateway's approval sessions and the outcome each records. */
export const APPROVAL_DECISION_OUTCOMES: Readonly<Record<string, ApprovalInput['outcome']>> = {
  'approval.granted': 'approved',
  'approval.denied': 'denied',
  'approval.countered': 'countered',
};

/** Prefix of an approval decision's record id; the rest is the SHA-256 hex of its session token. */
export const APPROVAL_RECORD_PREFIX = 'apr_';

/** The record id of the approval decision minted under `sessionToken` (never the token itself). */
export function approvalRecordId(sessionToken: string): string {
  return `${APPROVAL_RECORD_PREFIX}${sha256Hex(sessionToken)}`;
}

/**
 * Freezes the receipt of every completed standalone approval decision (minted with
 * `POST /api/v1/decisions`, kind approval) from decision-gateway's `approval.granted` /
 * `approval.denied` / `approval.countered`: an `authorization_record` whose one event is the
 * outcome. Sessions opened by an escalation carry no session token in the event: a conductor
 * escalation's outcome is an approval event of its authority's record ({@link ApprovalEvents}),
 * an oversight one's is the attestation's witness receipt. The controller's name and jurisdiction
 * come with the event (`application`).
 */
@Controller()
export class ApprovalDecisions {
  constructor(
    private readonly bus: BusConnection,
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
    private readonly intake: ReceiptIntake,
    private readonly pseudonyms: PrincipalPseudonyms,
    private readonly freeze: FreezeReceipt,
  ) {}

  /** Freezes one approval decision's receipt; false when the event was not one, was seen before or was refused. */
  @EventConsumer({ durable: CONSUMER, types: 'approval.>' }, RECEIPT_INTAKE_DELIVERY)
  async handle(event: DeliveredEvent): Promise<boolean> {
    const outcome = APPROVAL_DECISION_OUTCOMES[event.eventType];
    if (!outcome) return false;
    const decided = decodeSealedEvent(ApprovalDecidedSchema, event.data, this.bus.personalData);
    const applicationId = decided.meta?.applicationId ?? '';
    if (!applicationId || !decided.sessionToken) return false;
    if (await this.intake.seen(CONSUMER, event)) return false;
    let input: ApprovalInput;
    try {
      input = await this.input(decided, applicationId, outcome);
    } catch (error) {
      if (error instanceof UnreceiptableRecord) return this.intake.skip(CONSUMER, event, error);
      throw error;
    }
    return this.intake.once(CONSUMER, event, async (manager) => (await this.freeze.execute(input, 'decision-gateway', manager)).created);
  }

  private async input(decided: ApprovalDecided, applicationId: string, outcome: ApprovalInput['outcome']): Promise<ApprovalInput> {
    const application = await applicationOfEvent(this.rpc, applicationId, decided.application);
    const jurisdiction = declaredJurisdiction(application);
    return {
      kind: 'approval_record',
      record_id: approvalRecordId(decided.sessionToken),
      application_id: applicationId,
      pii_principal_id: decided.principalId
        ? await this.pseudonyms.pseudonym(applicationId, { kind: 'principal', value: decided.principalId })
        : undefined,
      // Decided through the API or the hosted page: no interface locale of the person is known.
      language: UNDETERMINED_LANGUAGE,
      outcome,
      decided_at: eventTime(decided.decidedAt, decided.meta),
      // A decided approval cannot be withdrawn; the person's decisions are listed in their inbox.
      withdrawal_method: `${this.config.publicBaseUrl}/inbox`,
      parties: [controllerParty(applicationId, application.found ? application.name : undefined)],
      processing: jurisdiction ? { jurisdiction } : {},
    };
  }
}

import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import { projectReceipt, type ReceiptStatus } from '../events/project-events';
import type { NoticeContent, NoticeRecordInput } from '../record/inputs';
import { noticeHash } from '../record/notice-hash';
import { LAWFUL_BASES, type LawfulBasis, type ReceiptDocument } from '../record/receipt-document';
import { receiptsError } from '../receipts.errors';
import { ReceiptsRepository } from '../storage/receipts.repository';
import { FreezeReceipt } from './freeze-receipt.use-case';
import { declaredJurisdiction } from '../intake/consent-record-input';

/** The closed payload of `POST /api/v1/disclosure_receipts` (spec, Disclosure receipt). */
export interface DisclosureCommand {
  flowId: string;
  agentId: string;
  /** RFC 3339 time the operator says the agent disclosed the notice. */
  disclosedAt: string;
  /** Locale the disclosure was made in. */
  locale: string;
}

/** A recorded disclosure receipt. */
export interface RecordedDisclosure {
  recordId: string;
  status: ReceiptStatus;
  document: ReceiptDocument;
}

/** How far ahead of the platform clock a declared disclosure time may be (clock skew), ms. */
export const DISCLOSED_AT_SKEW_MS = 60_000;

/**
 * Records that an agent disclosed a flow's notice, as declared by the operator: an anonymous
 * `notice_record` whose notice is the flow's active version (hashed as the spec says), with one
 * `agent_disclosures` entry of provenance `operator_declared` and collection channel
 * `controller_attested`. Nothing in the payload can claim platform delivery: the payload has no
 * such field, and these values are constants here.
 */
@Injectable()
export class RecordDisclosure {
  constructor(
    private readonly rpc: RpcClient,
    private readonly freeze: FreezeReceipt,
    private readonly receipts: ReceiptsRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, command: DisclosureCommand): Promise<RecordedDisclosure> {
    const now = this.clock.now();
    const disclosedAt = new Date(command.disclosedAt);
    if (disclosedAt.getTime() > now.getTime() + DISCLOSED_AT_SKEW_MS) {
      throw receiptsError('disclosed_at_in_future', 'disclosed_at is in the future', { field: 'disclosed_at' });
    }
    const flow = await this.activeFlow(principal.applicationId, command.flowId);
    const application = await this.rpc.call('gateway.get_application', { applicationId: principal.applicationId });
    const notice: NoticeContent = {
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
    const input: NoticeRecordInput = {
      kind: 'notice_record',
      record_id: newRegionalId('disclosure_receipt', this.config.REGION),
      application_id: principal.applicationId,
      principal: { kind: 'anonymous' },
      notice: { reference: `${flow.flowId}@v${flow.version}`, content: notice },
      notice_url: notice.policy_url ?? undefined,
      language: command.locale,
      shown_at: disclosedAt.toISOString(),
      shown_by: command.agentId,
      parties: [
        {
          party_id: principal.applicationId,
          party_name: application.found && application.name ? application.name : principal.applicationId,
          party_role: 'controller',
          party_type: 'organization',
          provenance: application.found && application.name ? 'display_name' : 'declared',
        },
        // The agent's name is not known to the platform: its id is what the operator declared.
        {
          party_id: command.agentId,
          party_name: command.agentId,
          party_role: 'agent',
          party_type: 'software_agent',
          provenance: 'declared',
        },
      ],
      processing: declaredJurisdiction(application) ? { jurisdiction: declaredJurisdiction(application) } : {},
      collection: {
        collection_channel: 'controller_attested',
        consent_flow_id: flow.flowId,
        agent_disclosures: [
          {
            agent_id: command.agentId,
            flow_id: flow.flowId,
            disclosed_at: disclosedAt.toISOString(),
            notice_hash: noticeHash(notice),
            provenance: 'operator_declared',
          },
        ],
        recorded_at: now.toISOString(),
      },
    };
    const frozen = await this.freeze.execute(input, 'disclosure');
    const projection = projectReceipt(frozen.document, await this.receipts.transitions(frozen.recordId), now);
    return { recordId: frozen.recordId, status: projection.status, document: projection.document };
  }

  private async activeFlow(applicationId: string, flowId: string) {
    const reply = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version: 0 });
    if (!reply.found) throw receiptsError('flow_not_found', 'Flow not found', { flow_id: flowId });
    if (reply.activeVersion === 0)
      throw receiptsError('flow_not_active', 'The flow is a draft: activate it before recording disclosures', { flow_id: flowId });
    if (reply.version === reply.activeVersion) return reply;
    const active = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version: reply.activeVersion });
    if (!active.found) throw receiptsError('flow_not_found', 'Flow not found', { flow_id: flowId });
    return active;
  }
}

function lawfulBasis(mechanism: string): LawfulBasis {
  // Flows only store these values; anything else would be a contract break worth failing on.
  if ((LAWFUL_BASES as readonly string[]).includes(mechanism)) return mechanism as LawfulBasis;
  throw new Error(`Flow purpose mechanism "${mechanism}" is not a lawful basis`);
}

import { Controller, Inject, Injectable } from '@nestjs/common';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { ApprovalRequestedSchema, decodeSealedEvent, parseApprovalProposal, type ApprovalRequested } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { ApplicationsRepository } from '../applications/applications.repository';
import { PlatformConfig } from '@svc/config';
import { DevicePush } from '../devices/device-push';
import { EscalationApprovals, approvalRequestConsumers } from '../decisions/escalation-approvals.consumer';
import { PeopleMailer } from '../people/mailer';
import { GATEWAY_SCHEMA } from '../schema';
import { ApprovalUrls } from './approval-urls';
import { notificationLocale, renderApprovalMail } from './notification-texts';
import { NotificationRecipients } from './recipients';

const CONSUMER = 'decision-gateway-escalation-notices';

/**
 * Notifies each approver of an escalation (spec, OAP grant request: escalate → "principal
 * notified, signed approval URL sent"): one email per approver the platform can reach (a person's
 * `usr_` id of this region, or a reference the application linked to a person), carrying that
 * approver's signed approval URL ({@link ApprovalUrls}), which expires with the escalation.
 *
 * A bus consumer of `oap.approval_requested` and `oversight.approval_requested`, exactly once per
 * event (bus inbox). It opens the approval session first (idempotent with the session consumer and the page's on-demand open), so
 * a link never reaches anyone before the page it opens exists. The approvers who are people also
 * get a Web Push on their linked devices (device links). Without SMTP no email is sent; without
 * VAPID keys no push.
 */
@Injectable()
export class EscalationNotices {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly approvals: EscalationApprovals,
    private readonly mailer: PeopleMailer,
    private readonly recipients: NotificationRecipients,
    private readonly urls: ApprovalUrls,
    private readonly applications: ApplicationsRepository,
    private readonly push: DevicePush,
    private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The number of approvers emailed by this delivery (0 when sent before or nobody is reachable). */
  async handle(event: DeliveredEvent): Promise<number> {
    const request = decodeSealedEvent(ApprovalRequestedSchema, event.data, this.bus.personalData);
    const applicationId = request.meta?.applicationId;
    if (!applicationId || !/^[0-9a-f]{64}$/.test(request.sessionTokenSha256) || (!this.mailer.configured && !this.push.settings.enabled))
      return 0;
    const deadline = new Date(Date.parse(request.approvalTtlAt));
    if (!Number.isFinite(deadline.getTime())) return 0;
    await this.approvals.handle(event);
    let sent = 0;
    await processOnce(this.dataSource, GATEWAY_SCHEMA, CONSUMER, event.id, async () => {
      sent = await this.notify(applicationId, request, deadline);
    });
    return sent;
  }

  private async notify(applicationId: string, request: ApprovalRequested, deadline: Date): Promise<number> {
    const application = await this.applications.findApplication(applicationId);
    if (!application) return 0;
    const approvers = request.approvers.length > 0 ? [...new Set(request.approvers)] : request.principalId ? [request.principalId] : [];
    const summary = summaryOf(request);
    let sent = 0;
    const people: string[] = [];
    for (const approverId of approvers) {
      const recipient = await this.recipients.approver(applicationId, approverId);
      if (!recipient) continue;
      if (recipient.personId) people.push(recipient.personId);
      if (!this.mailer.configured) continue;
      const approvalUrl = await this.urls.sign({
        escalationId: request.escalationId,
        approverId,
        sessionTokenSha256: request.sessionTokenSha256,
        deadline,
      });
      const locale = notificationLocale(recipient.locale);
      const mail = renderApprovalMail(locale, {
        applicationName: application.name,
        agentName: summary.agent,
        action: summary.action,
        deadline,
        approvalUrl,
      });
      await this.mailer.send({ to: recipient.email, subject: mail.subject, text: mail.text, html: mail.html, language: mail.locale });
      sent += 1;
    }
    // Their linked phones hear of it by Web Push too (the inbox lists it whatever happens).
    const pushed = await this.push.notify(people, {
      type: 'approval_requested',
      reference: request.escalationId,
      url: `${this.config.publicBaseUrl}/inbox`,
    });
    this.logger.info(
      { escalationId: request.escalationId, approvers: approvers.length, notified: sent, pushed },
      'escalation notices sent',
    );
    return sent;
  }
}

/** The agent's name and what it asks, from the approval proposal (else the bare request). */
function summaryOf(request: ApprovalRequested): { agent: string; action: string } {
  let proposal = null;
  try {
    proposal = request.proposalJson ? parseApprovalProposal(JSON.parse(request.proposalJson) as unknown) : null;
  } catch {
    proposal = null;
  }
  if (!proposal) return { agent: request.agentId, action: 'act' };
  const value = proposal.value ? ` ${proposal.value.amount} ${proposal.value.currency}` : '';
  return { agent: proposal.agent.name || request.agentId, action: `${proposal.actions.join(', ') || 'act'}${value}` };
}

/** The consumer of `oap.approval_requested` and `oversight.approval_requested` that emails the approvers. */
@Controller()
export class EscalationNoticeConsumer {
  constructor(private readonly notices: EscalationNotices) {}

  @EventConsumer(approvalRequestConsumers(CONSUMER))
  async handle(event: DeliveredEvent): Promise<void> {
    await this.notices.handle(event);
  }
}

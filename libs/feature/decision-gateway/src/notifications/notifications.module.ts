import { Module } from '@nestjs/common';
import { ApplicationsRepository } from '../applications/applications.repository';
import { DecisionsModule } from '../decisions/decisions.module';
import { DevicesModule } from '../devices/devices.module';
import { FlowPresentations } from '../hosted/flow-presentation';
import { PeopleModule } from '../people/people.module';
import { ApprovalUrls } from './approval-urls';
import { EscalationNoticeConsumer, EscalationNotices } from './escalation-notices.consumer';
import { ReceiptEmailConsumer, ReceiptEmails } from './receipt-emails.consumer';
import { NotificationRecipients } from './recipients';

/**
 * Notifications over SMTP (the people mailer): receipt emails after consent records, and the
 * escalation notice with a signed approval URL to each approver. Bus consumers only.
 */
@Module({
  imports: [DecisionsModule, PeopleModule, DevicesModule],
  controllers: [ReceiptEmailConsumer, EscalationNoticeConsumer],
  providers: [ApplicationsRepository, FlowPresentations, NotificationRecipients, ApprovalUrls, ReceiptEmails, EscalationNotices],
  exports: [ApprovalUrls, ReceiptEmails, EscalationNotices],
})
export class NotificationsModule {}

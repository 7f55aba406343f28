import { Controller, Inject, Injectable } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventBatchConsumer, eachInOrder, type BatchOutcomes, type DeliveredEvent } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { ConsentRecordedSchema, decodeEventFields, decodeSealedEvent, type ConsentRecorded } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { ApplicationsRepository } from '../applications/applications.repository';
import { FlowPresentations } from '../hosted/flow-presentation';
import { PeopleMailer } from '../people/mailer';
import { GATEWAY_SCHEMA } from '../schema';
import { notificationLocale, renderReceiptMail } from './notification-texts';
import { NotificationRecipients } from './recipients';

/** consent-records' event for every record written (Record API, capture commit, session, form). */
export const CONSENT_RECORDED_EVENT = 'consent.recorded' as const;
const CONSUMER = 'decision-gateway-receipt-emails';
/** The open fields that decide whether a record gets an email (the rest is decoded only when it does). */
const RECEIPT_TRIGGER_FIELDS = ['meta', 'recordId', 'sendReceipt', 'collectionChannel'] as const;

/** Historical records brought in by an import get no email: the person decided long ago. */
const SILENT_CHANNELS = new Set(['imported']);

/** Where the person's receipt of a record and the way back out of it are. */
export function receiptLinks(publicBaseUrl: string, recordId: string): { receiptUrl: string; withdrawalUrl: string } {
  return {
    // The signed-in person's own receipt page.
    receiptUrl: `${publicBaseUrl}/people/receipts/${encodeURIComponent(recordId)}`,
    // The credential-free withdrawal entry (the receipt's withdrawal_method): the person signs in and withdraws there.
    withdrawalUrl: `${publicBaseUrl}/people/account`,
  };
}

/**
 * Sends the receipt email of each consent record (spec, Captured consent and receipts: committing
 * "sends the receipt email (unless suppressed)"). Off the request path: a bus consumer of
 * `consent.recorded`, exactly once per event (the gateway's bus inbox marks it in the transaction
 * that sends; a failed send rolls the mark back and the event is redelivered). Sent to the email
 * supplied with the record, else to the person the record's external id is linked to; in the
 * person's language when the platform knows them, else the flow's. Without SMTP nothing is sent.
 */
@Injectable()
export class ReceiptEmails {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly mailer: PeopleMailer,
    private readonly recipients: NotificationRecipients,
    private readonly applications: ApplicationsRepository,
    private readonly flows: FlowPresentations,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** True when this delivery sent the email; false when there was nothing to send or it was sent before. */
  async handle(event: DeliveredEvent): Promise<boolean> {
    // Whether there is anything to send is read from the event's open fields: most events (bulk
    // imports among them) need no email, so their personal fields are never unsealed.
    const open = decodeEventFields(CONSENT_RECORDED_EVENT, event.data, RECEIPT_TRIGGER_FIELDS);
    const applicationId = open.meta?.applicationId;
    if (!applicationId || !open.recordId || !open.sendReceipt || SILENT_CHANNELS.has(open.collectionChannel)) return false;
    if (!this.mailer.configured) return false;
    const recorded = decodeSealedEvent(ConsentRecordedSchema, event.data, this.bus.personalData);
    let sent = false;
    await processOnce(this.dataSource, GATEWAY_SCHEMA, CONSUMER, event.id, async () => {
      sent = await this.send(applicationId, recorded);
    });
    return sent;
  }

  private async send(applicationId: string, recorded: ConsentRecorded): Promise<boolean> {
    const recipient = await this.recipients.subject(applicationId, {
      email: recorded.subjectEmail,
      externalId: recorded.subjectExternalId,
    });
    if (!recipient) return false;
    const application = await this.applications.findApplication(applicationId);
    if (!application) return false;
    const flow = await this.flows.get(applicationId, recorded.flowId, recorded.flowVersion).catch(() => null);
    const labels = new Map((flow?.found ? flow.purposes : []).map((p) => [p.key, p.label]));
    const granted = recorded.outcomes.filter((o) => o.decision === 'granted').map((o) => labels.get(o.purpose) ?? o.purpose);
    const locale = notificationLocale(recipient.locale ?? (flow?.found ? flow.locale : null));
    const mail = renderReceiptMail(locale, {
      applicationName: application.name,
      recordedAt: recorded.recordedAt ? timestampDate(recorded.recordedAt) : this.clock.now(),
      grantedPurposes: granted,
      ...receiptLinks(this.config.publicBaseUrl, recorded.recordId),
    });
    await this.mailer.send({ to: recipient.email, subject: mail.subject, text: mail.text, html: mail.html, language: mail.locale });
    // The record id only: never the address.
    this.logger.info({ recordId: recorded.recordId, locale }, 'receipt email sent');
    return true;
  }
}

/** The consumer of `consent.recorded` that sends receipt emails. */
@Controller()
export class ReceiptEmailConsumer {
  constructor(private readonly emails: ReceiptEmails) {}

  /** In batches: most records send no email, and a batch acknowledges its events in one write. */
  @EventBatchConsumer({ durable: CONSUMER, types: CONSENT_RECORDED_EVENT })
  handle(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    return eachInOrder(events, (event) => this.emails.handle(event));
  }
}

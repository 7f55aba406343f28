import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { peopleError } from './people.errors';
import { PeopleConfig } from './people.config';

/** One email to send (plain text). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends the people emails over SMTP (nodemailer); one pooled transport per process. */
@Injectable()
export class PeopleMailer implements OnModuleDestroy {
  private transport: Transporter | undefined;

  constructor(@Inject(PeopleConfig) private readonly config: PeopleConfig) {}

  async send(mail: OutgoingMail): Promise<void> {
    if (!this.config.SMTP_URL) throw peopleError('mail_unavailable', 'No mail server is configured; a code cannot be sent');
    this.transport ??= createTransport(this.config.SMTP_URL, { from: this.config.MAIL_FROM });
    try {
      await this.transport.sendMail({ from: this.config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    } catch {
      // The transport's error can quote the recipient; only the fact is reported.
      throw peopleError('mail_unavailable', 'The mail server did not accept the message; try again shortly');
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}

import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { peopleError } from './people.errors';
import { PeopleConfig } from './people.config';

/** One email to send: plain text, and an HTML alternative when given. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** HTML part (multipart/alternative with `text`); no remote images, no tracking. */
  html?: string;
  /** Content-Language of the message (BCP 47). */
  language?: string;
}

/** Sends the people emails and notifications over SMTP (nodemailer); one pooled transport per process. */
@Injectable()
export class PeopleMailer implements OnModuleDestroy {
  private transport: Transporter | undefined;

  constructor(@Inject(PeopleConfig) private readonly config: PeopleConfig) {}

  /** True when a mail server is configured; without one nothing is ever sent. */
  get configured(): boolean {
    return Boolean(this.config.SMTP_URL);
  }

  async send(mail: OutgoingMail): Promise<void> {
    if (!this.config.SMTP_URL) throw peopleError('mail_unavailable', 'No mail server is configured; a code cannot be sent');
    // nodemailer is loaded with the first mail: a process that sends none never loads it.
    const { createTransport } = await import('nodemailer');
    this.transport ??= createTransport(this.config.SMTP_URL, { from: this.config.MAIL_FROM });
    try {
      await this.transport.sendMail({
        from: this.config.MAIL_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        ...(mail.language !== undefined ? { headers: { 'Content-Language': mail.language } } : {}),
      });
    } catch {
      // The transport's error can quote the recipient; only the fact is reported.
      throw peopleError('mail_unavailable', 'The mail server did not accept the message; try again shortly');
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}

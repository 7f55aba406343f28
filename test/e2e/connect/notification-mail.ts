import type { MailDev } from '../support/mail';

/** A mail as MailDev's REST API holds it (the parts the notification tests read). */
export interface HeldMail {
  id: string;
  subject: string;
  text?: string;
  html?: string;
  to: Array<{ address: string }>;
  headers: Record<string, string>;
  date: string;
}

/** Every mail MailDev holds for `address`, oldest first. */
export async function heldMailsTo(mail: MailDev, address: string): Promise<HeldMail[]> {
  const res = await fetch(`${mail.webUrl}/email`);
  const all = (await res.json()) as HeldMail[];
  return all
    .filter((m) => m.to.some((to) => to.address.toLowerCase() === address.toLowerCase()))
    .sort((a, b) => a.date.localeCompare(b.date));
}

/** Waits until `address` has a mail whose subject matches `subject`, and returns it. */
export async function waitForMail(mail: MailDev, address: string, subject: RegExp, timeoutMs = 15_000): Promise<HeldMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await heldMailsTo(mail, address)).find((m) => subject.test(m.subject));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail matching ${String(subject)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

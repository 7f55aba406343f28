import { startMailDev, type MailDev } from '@svc/region-stack';

export { startMailDev, type MailDev };

interface StoredMail {
  id: string;
  subject: string;
  text?: string;
  to: Array<{ address: string }>;
  date: string;
}

/** Every mail MailDev holds for `address`, oldest first (its REST API). */
export async function mailsTo(mail: MailDev, address: string): Promise<StoredMail[]> {
  const res = await fetch(`${mail.webUrl}/email`);
  const all = (await res.json()) as StoredMail[];
  return all
    .filter((m) => m.to.some((to) => to.address.toLowerCase() === address.toLowerCase()))
    .sort((a, b) => a.date.localeCompare(b.date));
}

/** Waits for the `n`-th mail to `address` (1-based) and returns the 6-digit code it carries. */
export async function codeFor(mail: MailDev, address: string, n: number, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await mailsTo(mail, address);
    const found = mails[n - 1];
    const code = found ? /\b(\d{6})\b/.exec(`${found.subject} ${found.text ?? ''}`)?.[1] : undefined;
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no code mail #${n} to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

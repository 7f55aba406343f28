import { escapeHtml } from '../hosted/html';

/** The languages notifications are written in; any other locale falls back to English. */
export const NOTIFICATION_LOCALES = ['en', 'fr'] as const;
export type NotificationLocale = (typeof NOTIFICATION_LOCALES)[number];

/** One rendered notification: subject, plain-text part and HTML part (no images, no remote content). */
export interface RenderedMail {
  locale: NotificationLocale;
  subject: string;
  text: string;
  html: string;
}

const WORDS = {
  en: {
    receipt_subject: 'Your consent receipt from {app}',
    receipt_intro: '{app} recorded your consent choices on {date}.',
    receipt_granted: 'You agreed to:',
    receipt_none: 'You agreed to none of the purposes offered.',
    receipt_link: 'Your receipt',
    receipt_withdraw: 'Change your mind at any time',
    receipt_footer: 'You receive this email because {app} recorded a consent decision with this address.',
    approval_subject: 'Approval needed: {app}',
    approval_intro: '{app} asks for your approval: the agent {agent} wants to {action}.',
    approval_deadline: 'Answer before {deadline}. After that the link stops working.',
    approval_link: 'Review the request',
    approval_footer: 'This link is for you only; do not forward it.',
  },
  fr: {
    receipt_subject: 'Votre reçu de consentement de {app}',
    receipt_intro: '{app} a enregistré vos choix de consentement le {date}.',
    receipt_granted: 'Vous avez accepté :',
    receipt_none: "Vous n'avez accepté aucune des finalités proposées.",
    receipt_link: 'Votre reçu',
    receipt_withdraw: 'Changer d’avis à tout moment',
    receipt_footer: 'Vous recevez ce message parce que {app} a enregistré une décision de consentement avec cette adresse.',
    approval_subject: 'Approbation requise : {app}',
    approval_intro: "{app} demande votre approbation : l'agent {agent} veut {action}.",
    approval_deadline: 'Répondez avant le {deadline}. Ensuite, le lien ne fonctionnera plus.',
    approval_link: 'Examiner la demande',
    approval_footer: 'Ce lien vous est personnel ; ne le transférez pas.',
  },
} as const satisfies Record<NotificationLocale, Record<string, string>>;

type Words = Readonly<Record<keyof (typeof WORDS)['en'], string>>;

/** The notification language of a BCP 47 tag (the person's locale, or an Accept-Language range). */
export function notificationLocale(tag: string | null | undefined): NotificationLocale {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (NOTIFICATION_LOCALES as readonly string[]).includes(primary) ? (primary as NotificationLocale) : 'en';
}

function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** A date and time in the notification's language, named as UTC (mail clients have no zone to rewrite it in). */
export function mailDate(date: Date, locale: NotificationLocale): string {
  return `${new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;
}

function page(locale: NotificationLocale, title: string, body: string): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a;max-width:36rem;margin:0 auto;padding:1rem">${body}</body></html>`;
}

function button(href: string, label: string): string {
  return `<p><a href="${escapeHtml(href)}" style="display:inline-block;padding:.6rem 1rem;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:.375rem">${escapeHtml(label)}</a></p>`;
}

/** What a receipt email says. */
export interface ReceiptMailFacts {
  applicationName: string;
  recordedAt: Date;
  /** Labels (or keys) of the granted purposes. */
  grantedPurposes: string[];
  receiptUrl: string;
  withdrawalUrl: string;
}

/** The receipt email after a consent record or a committed capture. */
export function renderReceiptMail(locale: NotificationLocale, facts: ReceiptMailFacts): RenderedMail {
  const w: Words = WORDS[locale];
  const values = { app: facts.applicationName, date: mailDate(facts.recordedAt, locale) };
  const subject = fill(w.receipt_subject, values);
  const intro = fill(w.receipt_intro, values);
  const granted = facts.grantedPurposes.length > 0 ? [w.receipt_granted, ...facts.grantedPurposes.map((p) => `- ${p}`)] : [w.receipt_none];
  const footer = fill(w.receipt_footer, values);
  const text = [
    intro,
    '',
    ...granted,
    '',
    `${w.receipt_link}: ${facts.receiptUrl}`,
    `${w.receipt_withdraw}: ${facts.withdrawalUrl}`,
    '',
    footer,
    '',
  ].join('\n');
  const list =
    facts.grantedPurposes.length > 0
      ? `<p>${escapeHtml(w.receipt_granted)}</p><ul>${facts.grantedPurposes.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>`
      : `<p>${escapeHtml(w.receipt_none)}</p>`;
  const html = page(
    locale,
    subject,
    `<h1 style="font-size:1.25rem">${escapeHtml(subject)}</h1><p>${escapeHtml(intro)}</p>${list}${button(facts.receiptUrl, w.receipt_link)}<p><a href="${escapeHtml(facts.withdrawalUrl)}">${escapeHtml(w.receipt_withdraw)}</a></p><p style="color:#555;font-size:.875rem">${escapeHtml(footer)}</p>`,
  );
  return { locale, subject, text, html };
}

/** What an escalation notice says. */
export interface ApprovalMailFacts {
  applicationName: string;
  agentName: string;
  /** The action asked for, in the request's words (e.g. `pay 25.50 EUR`). */
  action: string;
  deadline: Date;
  approvalUrl: string;
}

/** The escalation notice to one approver, with their signed approval URL. */
export function renderApprovalMail(locale: NotificationLocale, facts: ApprovalMailFacts): RenderedMail {
  const w: Words = WORDS[locale];
  const values = { app: facts.applicationName, agent: facts.agentName, action: facts.action, deadline: mailDate(facts.deadline, locale) };
  const subject = fill(w.approval_subject, values);
  const intro = fill(w.approval_intro, values);
  const deadline = fill(w.approval_deadline, values);
  const text = [intro, '', deadline, '', `${w.approval_link}: ${facts.approvalUrl}`, '', w.approval_footer, ''].join('\n');
  const html = page(
    locale,
    subject,
    `<h1 style="font-size:1.25rem">${escapeHtml(subject)}</h1><p>${escapeHtml(intro)}</p><p>${escapeHtml(deadline)}</p>${button(facts.approvalUrl, w.approval_link)}<p style="color:#555;font-size:.875rem">${escapeHtml(w.approval_footer)}</p>`,
  );
  return { locale, subject, text, html };
}

import { escapeHtml, plainPage } from '../hosted/html';
import type { PeopleLocale } from './people-i18n';

const WORDS = {
  en: {
    title: 'Your consent receipt',
    notFound: 'No receipt of yours has this number.',
    from: 'From',
    recorded: 'Frozen at',
    digest: 'SHA-256 of the receipt',
    history: 'What happened since',
    document: 'The receipt, as signed',
    withdraw: 'Withdraw this consent',
  },
  fr: {
    title: 'Votre reçu de consentement',
    notFound: 'Aucun de vos reçus ne porte ce numéro.',
    from: 'De',
    recorded: 'Figé le',
    digest: 'SHA-256 du reçu',
    history: 'Ce qui s’est passé depuis',
    document: 'Le reçu, tel que signé',
    withdraw: 'Retirer ce consentement',
  },
  de: {
    title: 'Ihr Einwilligungsbeleg',
    notFound: 'Keiner Ihrer Belege hat diese Nummer.',
    from: 'Von',
    recorded: 'Festgeschrieben am',
    digest: 'SHA-256 des Belegs',
    history: 'Was seitdem geschah',
    document: 'Der Beleg, wie signiert',
    withdraw: 'Diese Einwilligung widerrufen',
  },
  es: {
    title: 'Su recibo de consentimiento',
    notFound: 'Ninguno de sus recibos tiene este número.',
    from: 'De',
    recorded: 'Fijado el',
    digest: 'SHA-256 del recibo',
    history: 'Lo ocurrido desde entonces',
    document: 'El recibo, tal como se firmó',
    withdraw: 'Retirar este consentimiento',
  },
  pt: {
    title: 'O seu recibo de consentimento',
    notFound: 'Nenhum dos seus recibos tem este número.',
    from: 'De',
    recorded: 'Fixado em',
    digest: 'SHA-256 do recibo',
    history: 'O que aconteceu desde então',
    document: 'O recibo, tal como assinado',
    withdraw: 'Retirar este consentimento',
  },
  ja: {
    title: '同意の受領証',
    notFound: 'この番号の受領証はありません。',
    from: '発行元',
    recorded: '確定日時',
    digest: '受領証の SHA-256',
    history: 'その後の経過',
    document: '署名された受領証',
    withdraw: 'この同意を撤回する',
  },
} satisfies Record<PeopleLocale, Record<string, string>>;

/** A frozen receipt as the person's own export holds it (`receipts.person_data`). */
export interface PersonReceipt {
  record_id: string;
  document_sha256: string;
  frozen_at: string;
  document: unknown;
  transitions: Array<{ type: string; occurred_at: string }>;
}

/**
 * `GET /people/receipts/:record_id`: the signed-in person's own consent receipt (the link of the
 * receipt email): who issued it, when it was frozen, its digest, what happened since, and the
 * document itself; `receipt` undefined renders the not-found page.
 */
export function renderMyReceiptPage(model: {
  locale: PeopleLocale;
  nonce: string;
  applicationName?: string;
  receipt?: PersonReceipt;
  withdrawalUrl: string;
}): string {
  const w = WORDS[model.locale];
  const r = model.receipt;
  const body = r
    ? `<dl><dt>${escapeHtml(w.from)}</dt><dd id="receipt-issuer">${escapeHtml(model.applicationName ?? '')}</dd><dt>${escapeHtml(w.recorded)}</dt><dd><time datetime="${escapeHtml(r.frozen_at)}">${escapeHtml(r.frozen_at)}</time></dd><dt>${escapeHtml(w.digest)}</dt><dd><code id="receipt-digest">${escapeHtml(r.document_sha256)}</code></dd></dl>${
        r.transitions.length
          ? `<h2>${escapeHtml(w.history)}</h2><ul id="receipt-history">${r.transitions.map((t) => `<li><time datetime="${escapeHtml(t.occurred_at)}">${escapeHtml(t.occurred_at)}</time> · ${escapeHtml(t.type)}</li>`).join('')}</ul>`
          : ''
      }<p><a href="${escapeHtml(model.withdrawalUrl)}">${escapeHtml(w.withdraw)}</a></p><h2>${escapeHtml(w.document)}</h2><pre id="receipt-document">${escapeHtml(JSON.stringify(r.document, null, 2))}</pre>`
    : `<p id="receipt-not-found">${escapeHtml(w.notFound)}</p>`;
  return plainPage({
    locale: model.locale,
    nonce: model.nonce,
    title: w.title,
    style:
      'body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:1rem}dt{font-weight:600}',
    main: body,
  });
}

/**
 * Strings of the hosted decision pages. The flow's locale picks the dictionary (`fr-CA` → `fr`);
 * an unknown locale falls back to English, key by key, so a partial dictionary never shows a
 * blank label.
 */

const EN = {
  page_title_consent: 'Consent',
  page_title_approval: 'Approval request',
  page_title_signature_request: 'Signature request',
  purposes: 'What you are asked to agree to',
  required: 'required',
  policy: 'Privacy policy',
  disclosures: 'Disclosures',
  disclosures_intro: 'Please read these disclosures before you decide.',
  evidence_label: 'I have read and understood the disclosures above',
  evidence_submit: 'Confirm my understanding',
  ack_disclosures: 'I have read the disclosures',
  step: 'Step {n} of {total}',
  step_sign_in: 'Continue',
  step_start_checks: 'Run the checks',
  step_review_terms: 'Review the terms',
  agree: 'I agree',
  decline: 'Decline',
  proposed_action: 'Proposed action',
  bounds: 'Bounds',
  trigger: 'Why you are asked',
  trigger_none: 'Manual request',
  agent: 'Agent',
  agent_provider: 'Provider',
  agent_model: 'Model',
  not_reported: 'not reported',
  actions: 'Actions it wants to perform',
  scope: 'Access it asks for',
  amount: 'Amount',
  no_amount: 'No amount',
  context: 'Concerning',
  purpose: 'Purpose',
  counterparty: 'Counterparty',
  on_behalf_of: 'On behalf of',
  jurisdiction: 'Jurisdiction',
  grant_valid_until: 'Valid until, if approved',
  trigger_always: 'Every request of this agent needs a person\'s approval.',
  trigger_amount_over: 'The amount, {amount} {currency}, is above {limit} {currency}: larger amounts need approval.',
  trigger_actions: 'These actions need approval: {names}.',
  trigger_scopes: 'This access needs approval: {names}.',
  approve: 'Approve',
  deny: 'Deny',
  counter: 'Propose a change',
  counter_label: 'Your counter proposal',
  counter_submit: 'Send counter proposal',
  document: 'Document to sign',
  sign: 'Sign',
  deadline: 'Decide before',
  status_loading: 'Loading…',
  status_working: 'Saving your answer…',
  status_done: 'Thank you. Your answer was recorded: {outcome}.',
  status_expired: 'This request has expired.',
  status_error: 'Something went wrong. Please try again.',
  outcome_granted: 'granted',
  outcome_declined: 'declined',
  outcome_approved: 'approved',
  outcome_denied: 'denied',
  outcome_countered: 'countered',
  outcome_signed: 'signed',
  outcome_expired: 'expired',
  outcome_revoked: 'revoked',
  not_found_title: 'Not found',
  not_found_text: 'This link is not valid or no longer exists.',
} as const;

/** Keys every dictionary may define. */
export type MessageKey = keyof typeof EN;
export type Dictionary = Readonly<Record<MessageKey, string>>;

const FR: Partial<Record<MessageKey, string>> = {
  page_title_consent: 'Consentement',
  page_title_approval: "Demande d'approbation",
  page_title_signature_request: 'Demande de signature',
  purposes: 'Ce à quoi vous consentez',
  required: 'obligatoire',
  policy: 'Politique de confidentialité',
  disclosures: 'Informations préalables',
  disclosures_intro: 'Veuillez lire ces informations avant de décider.',
  evidence_label: "J'ai lu et compris les informations ci-dessus",
  evidence_submit: 'Confirmer ma compréhension',
  ack_disclosures: "J'ai lu les informations",
  step: 'Étape {n} sur {total}',
  step_sign_in: 'Continuer',
  step_start_checks: 'Lancer les vérifications',
  step_review_terms: 'Lire les conditions',
  agree: "J'accepte",
  decline: 'Refuser',
  proposed_action: 'Action proposée',
  bounds: 'Limites',
  trigger: 'Pourquoi cette demande',
  trigger_none: 'Demande manuelle',
  approve: 'Approuver',
  deny: 'Refuser',
  counter: 'Proposer une modification',
  counter_label: 'Votre contre-proposition',
  counter_submit: 'Envoyer la contre-proposition',
  document: 'Document à signer',
  sign: 'Signer',
  deadline: 'Décider avant le',
  status_loading: 'Chargement…',
  status_working: 'Enregistrement de votre réponse…',
  status_done: 'Merci. Votre réponse a été enregistrée : {outcome}.',
  status_expired: 'Cette demande a expiré.',
  status_error: 'Une erreur est survenue. Veuillez réessayer.',
  outcome_granted: 'accordé',
  outcome_declined: 'refusé',
  outcome_approved: 'approuvé',
  outcome_denied: 'refusé',
  outcome_countered: 'contre-proposition',
  outcome_signed: 'signé',
  outcome_expired: 'expiré',
  outcome_revoked: 'retiré',
  not_found_title: 'Introuvable',
  not_found_text: "Ce lien n'est pas valide ou n'existe plus.",
};

const DICTIONARIES: Readonly<Record<string, Partial<Record<MessageKey, string>>>> = { en: EN, fr: FR };

/** Locales with a dictionary of their own. */
export const SUPPORTED_LOCALES = Object.keys(DICTIONARIES);

/** The supported language of a BCP 47 tag (`fr-CA` → `fr`), else `en`. */
export function resolveLocale(tag: string | null | undefined): string {
  const language = (tag ?? '').toLowerCase().split('-')[0] ?? '';
  return language in DICTIONARIES ? language : 'en';
}

/** The full dictionary of a locale, English filling any gap. */
export function dictionary(locale: string): Dictionary {
  return { ...EN, ...(DICTIONARIES[resolveLocale(locale)] ?? {}) };
}

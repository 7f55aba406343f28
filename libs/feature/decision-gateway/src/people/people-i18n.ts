/** Strings of the people pages and emails, per language (BCP 47 primary subtag). */
const EN = {
  sign_in_title: 'Sign in',
  sign_up_title: 'Create your account',
  account_title: 'Your account',
  email_label: 'Email address',
  display_name_label: 'Your name',
  country_label: 'Country where you live',
  send_code: 'Email me a code',
  code_sent: 'If an account can use this address, we sent it a code. It expires in 10 minutes.',
  code_label: 'Code from the email',
  verify_code: 'Continue',
  code_invalid: 'That code is not right. Tries left: {n}.',
  code_expired: 'That code can no longer be used. Ask for a new one.',
  rate_limited: 'Too many attempts. Try again in {n} seconds.',
  wrong_region: 'Your account lives in another region. Taking you there…',
  use_passkey: 'Sign in with a passkey',
  passkey_failed: 'The passkey did not work. Try again or use an email code.',
  no_account: 'No account yet?',
  sign_up_link: 'Create one',
  have_account: 'Already have an account?',
  sign_in_link: 'Sign in',
  sign_out: 'Sign out',
  signed_in_as: 'Signed in as {name}',
  passkeys_heading: 'Passkeys',
  no_passkeys: 'You have no passkey yet.',
  add_passkey: 'Add a passkey',
  passkey_added: 'Passkey added.',
  remove: 'Remove',
  links_heading: 'Applications that know you',
  no_links: 'No application has linked your account.',
  link_subject_external_id: 'account id',
  link_subject_email: 'email',
  profile_heading: 'Profile',
  home_country: 'Home country',
  failed: 'Something went wrong. Try again.',
  inbox_title: 'Your decisions',
  inbox_empty: 'Nothing is waiting for you.',
  filter_all: 'All',
  kind_consent: 'Consent',
  kind_approval: 'Approval',
  sort_deadline: 'Deadline first',
  sort_newest: 'Newest first',
  trigger_label: 'Trigger',
  deadline_label: 'Decide by',
  open_decision: 'Open',
  next_page: 'More',
  all_applications: 'All applications',
  inbox_link: 'Your decisions',
  confirm_person: 'This decision is for {name}. If that is you, sign in to confirm it.',
  mail_subject: 'Your sign-in code: {code}',
  mail_body: 'Your code is {code}. It expires in {minutes} minutes. If you did not ask for it, ignore this email.',
  mail_no_account_subject: 'Sign-in attempt',
  mail_no_account_body: 'Someone tried to sign in with this address, but it has no account in this region. To create one, go to {url}. If it was not you, ignore this email.',
} as const;

export type PeopleStringKey = keyof typeof EN;

const FR: Record<PeopleStringKey, string> = {
  sign_in_title: 'Se connecter',
  sign_up_title: 'Créer votre compte',
  account_title: 'Votre compte',
  email_label: 'Adresse e-mail',
  display_name_label: 'Votre nom',
  country_label: 'Pays où vous vivez',
  send_code: 'M’envoyer un code',
  code_sent: 'Si un compte peut utiliser cette adresse, nous lui avons envoyé un code. Il expire dans 10 minutes.',
  code_label: 'Code reçu par e-mail',
  verify_code: 'Continuer',
  code_invalid: 'Ce code n’est pas le bon. Essais restants : {n}.',
  code_expired: 'Ce code n’est plus utilisable. Demandez-en un nouveau.',
  rate_limited: 'Trop de tentatives. Réessayez dans {n} secondes.',
  wrong_region: 'Votre compte est hébergé dans une autre région. Redirection…',
  use_passkey: 'Se connecter avec une clé d’accès',
  passkey_failed: 'La clé d’accès n’a pas fonctionné. Réessayez ou utilisez un code par e-mail.',
  no_account: 'Pas encore de compte ?',
  sign_up_link: 'En créer un',
  have_account: 'Vous avez déjà un compte ?',
  sign_in_link: 'Se connecter',
  sign_out: 'Se déconnecter',
  signed_in_as: 'Connecté en tant que {name}',
  passkeys_heading: 'Clés d’accès',
  no_passkeys: 'Vous n’avez pas encore de clé d’accès.',
  add_passkey: 'Ajouter une clé d’accès',
  passkey_added: 'Clé d’accès ajoutée.',
  remove: 'Supprimer',
  links_heading: 'Applications qui vous connaissent',
  no_links: 'Aucune application n’a lié votre compte.',
  link_subject_external_id: 'identifiant de compte',
  link_subject_email: 'e-mail',
  profile_heading: 'Profil',
  home_country: 'Pays de résidence',
  failed: 'Une erreur est survenue. Réessayez.',
  inbox_title: 'Vos décisions',
  inbox_empty: 'Rien ne vous attend.',
  filter_all: 'Toutes',
  kind_consent: 'Consentement',
  kind_approval: 'Approbation',
  sort_deadline: 'Échéance d’abord',
  sort_newest: 'Plus récentes d’abord',
  trigger_label: 'Déclencheur',
  deadline_label: 'À décider avant',
  open_decision: 'Ouvrir',
  next_page: 'Suite',
  all_applications: 'Toutes les applications',
  inbox_link: 'Vos décisions',
  confirm_person: 'Cette décision concerne {name}. Si c’est vous, connectez-vous pour le confirmer.',
  mail_subject: 'Votre code de connexion : {code}',
  mail_body: 'Votre code est {code}. Il expire dans {minutes} minutes. Si vous ne l’avez pas demandé, ignorez cet e-mail.',
  mail_no_account_subject: 'Tentative de connexion',
  mail_no_account_body: 'Quelqu’un a tenté de se connecter avec cette adresse, mais elle n’a pas de compte dans cette région. Pour en créer un : {url}. Si ce n’était pas vous, ignorez cet e-mail.',
};

const CATALOGUES: Readonly<Record<string, Record<PeopleStringKey, string>>> = { en: EN, fr: FR };

export type PeopleLocale = 'en' | 'fr';

/** The catalogue language for a BCP 47 tag or an Accept-Language header (English by default). */
export function peopleLocale(tagOrHeader: string | undefined | null): PeopleLocale {
  for (const part of (tagOrHeader ?? '').split(',')) {
    const primary = part.trim().split(/[-_;]/, 1)[0]?.toLowerCase();
    if (primary === 'fr' || primary === 'en') return primary;
  }
  return 'en';
}

/** One string, with `{name}` placeholders filled. */
export function peopleText(locale: PeopleLocale, key: PeopleStringKey, values: Readonly<Record<string, string | number>> = {}): string {
  const template = (CATALOGUES[locale] ?? EN)[key];
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}

/** The whole catalogue of a language (handed to the page script). */
export function peopleCatalogue(locale: PeopleLocale): Readonly<Record<PeopleStringKey, string>> {
  return CATALOGUES[locale] ?? EN;
}

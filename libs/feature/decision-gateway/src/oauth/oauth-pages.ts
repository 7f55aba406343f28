import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../hosted/approval-proposal-view';
import { newNonce } from '../hosted/page-security';
import { PAGE_STYLES } from '../hosted/page-styles';

/** Strings of the OpenID provider's pages (consent to scopes, device code, sign-out, errors). */
const EN = {
  consent_title: 'Allow access',
  consent_intro: '{client} asks to use your account:',
  allow: 'Allow',
  deny: 'Deny',
  scope_openid: 'Know who you are',
  scope_profile: 'See your name, language and time zone',
  scope_email: 'See your email address',
  scope_offline_access: 'Keep access while you are away',
  'scope_audit:verify': 'Read authorization receipts',
  'scope_disclosures:write': 'Record disclosure receipts',
  device_title: 'Connect a device',
  device_intro: 'Enter the code shown on your device.',
  device_code_label: 'Code',
  device_submit: 'Continue',
  device_wrong: 'That code is not valid. Check it and try again.',
  device_locked: 'Too many wrong codes. Start again on your device.',
  device_confirm: 'Connect {client} to your account?',
  device_done: 'Your device is connected. You can close this page.',
  logout_title: 'Sign out',
  logout_intro: 'Do you want to sign out?',
  logout_yes: 'Sign me out',
  logout_no: 'Stay signed in',
  logout_done: 'You are signed out.',
  error_title: 'This request cannot continue',
  error_text: 'Go back to the application and start again.',
  sign_in_unavailable: 'Sign-in is not available right now.',
};
type Catalogue = typeof EN;

const FR: Partial<Catalogue> = {
  consent_title: 'Autoriser l’accès',
  consent_intro: '{client} demande à utiliser votre compte :',
  allow: 'Autoriser',
  deny: 'Refuser',
  scope_openid: 'Savoir qui vous êtes',
  scope_profile: 'Voir votre nom, votre langue et votre fuseau horaire',
  scope_email: 'Voir votre adresse e-mail',
  scope_offline_access: 'Garder l’accès en votre absence',
  'scope_audit:verify': 'Lire les reçus d’autorisation',
  'scope_disclosures:write': 'Enregistrer des reçus de divulgation',
  device_title: 'Connecter un appareil',
  device_intro: 'Saisissez le code affiché sur votre appareil.',
  device_code_label: 'Code',
  device_submit: 'Continuer',
  device_wrong: 'Ce code n’est pas valide. Vérifiez-le et réessayez.',
  device_locked: 'Trop de codes erronés. Recommencez depuis votre appareil.',
  device_confirm: 'Connecter {client} à votre compte ?',
  device_done: 'Votre appareil est connecté. Vous pouvez fermer cette page.',
  logout_title: 'Se déconnecter',
  logout_intro: 'Voulez-vous vous déconnecter ?',
  logout_yes: 'Me déconnecter',
  logout_no: 'Rester connecté',
  logout_done: 'Vous êtes déconnecté.',
  error_title: 'Cette demande ne peut pas aboutir',
  error_text: 'Revenez à l’application et recommencez.',
  sign_in_unavailable: 'La connexion n’est pas disponible pour le moment.',
};

const CATALOGUES: Record<string, Partial<Catalogue>> = { en: EN, fr: FR };

/** The language of an Accept-Language header (or `ui_locales`) we have strings for, else `en`. */
export function pageLocale(...candidates: Array<string | undefined>): string {
  for (const candidate of candidates) {
    for (const tag of (candidate ?? '').split(/[ ,]/)) {
      const language = tag.split(';')[0]?.trim().toLowerCase().split('-')[0] ?? '';
      if (language in CATALOGUES) return language;
    }
  }
  return 'en';
}

export function strings(locale: string): Catalogue {
  return { ...EN, ...(CATALOGUES[locale] ?? {}) };
}

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? '');
}

/**
 * The content security policy of these pages: the hosted pages' rules, except that forms may post
 * to this origin and, after a post, the browser may follow the provider's redirect to the client
 * (`formTargets`).
 */
function policy(nonce: string, formTargets: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A page in the hosted pages' design; `body` is trusted HTML built with escapeHtml. */
export function page(locale: string, title: string, body: string, nonce = newNonce()): { html: string; nonce: string } {
  return {
    nonce,
    html: `<!doctype html>
<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${PAGE_STYLES}</style></head>
<body class="full"><main id="svc-main"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  };
}

/** Sends a page with the headers of every hosted page (no caching, no referrer, nosniff). */
export function sendPage(res: ServerResponse, status: number, rendered: { html: string; nonce: string }, formTargets: readonly string[] = []): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('content-security-policy', policy(rendered.nonce, formTargets));
  res.setHeader('cache-control', 'no-store');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(rendered.html);
}

/** The same page as a string for oidc-provider's own rendering hooks (headers set on its context). */
export function pageHeaders(nonce: string, formTargets: readonly string[] = []): Record<string, string> {
  return {
    'content-security-policy': policy(nonce, formTargets),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

export { escapeHtml };

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
  credential_verified_person: 'Put a “verified person” credential in your wallet',
  credential_authority_record: 'Put the record of an authority you granted in your wallet',
  scope_accounts: 'Manage your organisation accounts and their applications',
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
  credential_verified_person: 'Mettre une attestation « personne vérifiée » dans votre portefeuille',
  credential_authority_record: 'Mettre dans votre portefeuille l’attestation d’un pouvoir que vous avez accordé',
  scope_accounts: 'Gérer vos comptes d’organisation et leurs applications',
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

const DE: Catalogue = {
  consent_title: 'Zugriff erlauben',
  consent_intro: '{client} möchte Ihr Konto verwenden:',
  allow: 'Erlauben',
  deny: 'Ablehnen',
  scope_openid: 'Wissen, wer Sie sind',
  scope_profile: 'Ihren Namen, Ihre Sprache und Ihre Zeitzone sehen',
  scope_email: 'Ihre E-Mail-Adresse sehen',
  scope_offline_access: 'Zugriff behalten, während Sie abwesend sind',
  'scope_audit:verify': 'Autorisierungsbelege lesen',
  'scope_disclosures:write': 'Offenlegungsbelege erfassen',
  credential_verified_person: 'Einen Nachweis „verifizierte Person“ in Ihre Wallet legen',
  credential_authority_record: 'Den Nachweis einer von Ihnen erteilten Vollmacht in Ihre Wallet legen',
  scope_accounts: 'Ihre Organisationskonten und deren Anwendungen verwalten',
  device_title: 'Ein Gerät verbinden',
  device_intro: 'Geben Sie den Code ein, der auf Ihrem Gerät angezeigt wird.',
  device_code_label: 'Code',
  device_submit: 'Weiter',
  device_wrong: 'Dieser Code ist ungültig. Prüfen Sie ihn und versuchen Sie es erneut.',
  device_locked: 'Zu viele falsche Codes. Beginnen Sie auf Ihrem Gerät von vorn.',
  device_confirm: '{client} mit Ihrem Konto verbinden?',
  device_done: 'Ihr Gerät ist verbunden. Sie können diese Seite schließen.',
  logout_title: 'Abmelden',
  logout_intro: 'Möchten Sie sich abmelden?',
  logout_yes: 'Abmelden',
  logout_no: 'Angemeldet bleiben',
  logout_done: 'Sie sind abgemeldet.',
  error_title: 'Diese Anfrage kann nicht fortgesetzt werden',
  error_text: 'Kehren Sie zur Anwendung zurück und beginnen Sie erneut.',
  sign_in_unavailable: 'Die Anmeldung ist gerade nicht verfügbar.',
};

const ES: Catalogue = {
  consent_title: 'Permitir el acceso',
  consent_intro: '{client} pide usar tu cuenta:',
  allow: 'Permitir',
  deny: 'Denegar',
  scope_openid: 'Saber quién eres',
  scope_profile: 'Ver tu nombre, tu idioma y tu zona horaria',
  scope_email: 'Ver tu dirección de correo electrónico',
  scope_offline_access: 'Mantener el acceso mientras no estás',
  'scope_audit:verify': 'Leer recibos de autorización',
  'scope_disclosures:write': 'Registrar recibos de divulgación',
  credential_verified_person: 'Guardar una credencial de «persona verificada» en tu cartera',
  credential_authority_record: 'Guardar en tu cartera el registro de una autorización que concediste',
  scope_accounts: 'Gestionar tus cuentas de organización y sus aplicaciones',
  device_title: 'Conectar un dispositivo',
  device_intro: 'Introduce el código que aparece en tu dispositivo.',
  device_code_label: 'Código',
  device_submit: 'Continuar',
  device_wrong: 'Ese código no es válido. Revísalo e inténtalo de nuevo.',
  device_locked: 'Demasiados códigos erróneos. Vuelve a empezar en tu dispositivo.',
  device_confirm: '¿Conectar {client} a tu cuenta?',
  device_done: 'Tu dispositivo está conectado. Puedes cerrar esta página.',
  logout_title: 'Cerrar sesión',
  logout_intro: '¿Quieres cerrar la sesión?',
  logout_yes: 'Cerrar mi sesión',
  logout_no: 'Seguir con la sesión iniciada',
  logout_done: 'Has cerrado la sesión.',
  error_title: 'Esta solicitud no puede continuar',
  error_text: 'Vuelve a la aplicación y empieza de nuevo.',
  sign_in_unavailable: 'El inicio de sesión no está disponible en este momento.',
};

const PT: Catalogue = {
  consent_title: 'Permitir o acesso',
  consent_intro: '{client} pede para usar a sua conta:',
  allow: 'Permitir',
  deny: 'Recusar',
  scope_openid: 'Saber quem você é',
  scope_profile: 'Ver o seu nome, idioma e fuso horário',
  scope_email: 'Ver o seu endereço de e-mail',
  scope_offline_access: 'Manter o acesso enquanto você estiver ausente',
  'scope_audit:verify': 'Ler recibos de autorização',
  'scope_disclosures:write': 'Registar recibos de divulgação',
  credential_verified_person: 'Guardar uma credencial de “pessoa verificada” na sua carteira',
  credential_authority_record: 'Guardar na sua carteira o registro de uma autorização que você concedeu',
  scope_accounts: 'Gerir as suas contas de organização e as respetivas aplicações',
  device_title: 'Ligar um dispositivo',
  device_intro: 'Introduza o código apresentado no seu dispositivo.',
  device_code_label: 'Código',
  device_submit: 'Continuar',
  device_wrong: 'Esse código não é válido. Verifique-o e tente novamente.',
  device_locked: 'Demasiados códigos errados. Recomece no seu dispositivo.',
  device_confirm: 'Ligar {client} à sua conta?',
  device_done: 'O seu dispositivo está ligado. Pode fechar esta página.',
  logout_title: 'Terminar sessão',
  logout_intro: 'Quer terminar a sessão?',
  logout_yes: 'Terminar a minha sessão',
  logout_no: 'Manter a sessão iniciada',
  logout_done: 'A sua sessão foi terminada.',
  error_title: 'Este pedido não pode continuar',
  error_text: 'Volte à aplicação e recomece.',
  sign_in_unavailable: 'O início de sessão não está disponível neste momento.',
};

const JA: Catalogue = {
  consent_title: 'アクセスを許可',
  consent_intro: '{client} があなたのアカウントの利用を求めています:',
  allow: '許可する',
  deny: '拒否する',
  scope_openid: 'あなたが誰かを知る',
  scope_profile: 'あなたの名前、言語、タイムゾーンを見る',
  scope_email: 'あなたのメールアドレスを見る',
  scope_offline_access: 'あなたが不在の間もアクセスを維持する',
  'scope_audit:verify': '認可の受領証を読む',
  'scope_disclosures:write': '開示の受領証を記録する',
  credential_verified_person: '「本人確認済み」の証明書をウォレットに入れる',
  credential_authority_record: 'あなたが与えた権限の記録をウォレットに入れる',
  scope_accounts: '組織アカウントとそのアプリケーションを管理する',
  device_title: 'デバイスを接続',
  device_intro: 'デバイスに表示されているコードを入力してください。',
  device_code_label: 'コード',
  device_submit: '続ける',
  device_wrong: 'そのコードは無効です。確認してもう一度お試しください。',
  device_locked: '誤ったコードが多すぎます。デバイスでやり直してください。',
  device_confirm: '{client} をあなたのアカウントに接続しますか?',
  device_done: 'デバイスが接続されました。このページを閉じてかまいません。',
  logout_title: 'サインアウト',
  logout_intro: 'サインアウトしますか?',
  logout_yes: 'サインアウトする',
  logout_no: 'サインインしたままにする',
  logout_done: 'サインアウトしました。',
  error_title: 'このリクエストは続行できません',
  error_text: 'アプリケーションに戻り、もう一度始めてください。',
  sign_in_unavailable: '現在サインインは利用できません。',
};

const CATALOGUES: Record<string, Partial<Catalogue>> = { en: EN, fr: FR, de: DE, es: ES, pt: PT, ja: JA };

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
export function sendPage(
  res: ServerResponse,
  status: number,
  rendered: { html: string; nonce: string },
  formTargets: readonly string[] = [],
): void {
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

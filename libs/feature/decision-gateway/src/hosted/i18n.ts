/**
 * Strings of the hosted pages (decision, approval, signing, embed and the error pages) in every
 * supported language. Each catalogue is complete: the type makes a missing key a compile error
 * and `hosted.spec.ts` checks that every translation keeps the English placeholders.
 *
 * The page's language is negotiated (`negotiateLocale`): the browser's `Accept-Language`
 * against the catalogues, then the flow's own locale, then English. The flow's wording (title,
 * purposes) is written by the application in the flow's locale and is shown as written, marked
 * with its own `lang` so assistive technology reads it in the right language.
 */

const EN = {
  page_title_consent: 'Consent',
  page_title_approval: 'Approval request',
  page_title_signature_request: 'Signature request',
  purposes: 'What you are asked to agree to',
  purposes_intro: 'Choose for each purpose. Nothing is selected until you choose.',
  required: 'required',
  always_active: 'Always active: needed to provide the service',
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
  accept_all: 'Accept all',
  reject_all: 'Reject all',
  save_choices: 'Confirm my choices',
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
  trigger_always: "Every request of this agent needs a person's approval.",
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
  status_done_purposes: 'Thank you. You agreed to: {names}.',
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
  logo_alt: '{name} logo',
  not_found_title: 'Not found',
  not_found_text: 'This link is not valid or no longer exists.',
  redirect_not_allowed_title: 'This link cannot be used',
  redirect_not_allowed_text:
    "The return address of this link is not one of the application's registered addresses, so the page was not opened.",
  link_expired_title: 'This link has expired',
  link_expired_text: 'The approval deadline has passed, so this link no longer opens the request.',
} as const;

/** Keys every catalogue defines. */
export type MessageKey = keyof typeof EN;
export type Dictionary = Readonly<Record<MessageKey, string>>;

const FR: Dictionary = {
  page_title_consent: 'Consentement',
  page_title_approval: "Demande d'approbation",
  page_title_signature_request: 'Demande de signature',
  purposes: 'Ce à quoi vous êtes invité à consentir',
  purposes_intro: "Choisissez pour chaque finalité. Rien n'est sélectionné tant que vous n'avez pas choisi.",
  required: 'obligatoire',
  always_active: 'Toujours actif : nécessaire pour fournir le service',
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
  accept_all: 'Tout accepter',
  reject_all: 'Tout refuser',
  save_choices: 'Confirmer mes choix',
  decline: 'Refuser',
  proposed_action: 'Action proposée',
  bounds: 'Limites',
  trigger: 'Pourquoi cette demande',
  trigger_none: 'Demande manuelle',
  agent: 'Agent',
  agent_provider: 'Fournisseur',
  agent_model: 'Modèle',
  not_reported: 'non indiqué',
  actions: "Actions qu'il souhaite effectuer",
  scope: 'Accès demandés',
  amount: 'Montant',
  no_amount: 'Aucun montant',
  context: 'Concernant',
  purpose: 'Finalité',
  counterparty: 'Contrepartie',
  on_behalf_of: 'Pour le compte de',
  jurisdiction: 'Juridiction',
  grant_valid_until: "Valable jusqu'au, si approuvé",
  trigger_always: "Chaque demande de cet agent nécessite l'approbation d'une personne.",
  trigger_amount_over: 'Le montant, {amount} {currency}, dépasse {limit} {currency} : les montants supérieurs doivent être approuvés.',
  trigger_actions: 'Ces actions doivent être approuvées : {names}.',
  trigger_scopes: 'Cet accès doit être approuvé : {names}.',
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
  status_done_purposes: 'Merci. Vous avez accepté : {names}.',
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
  logo_alt: 'Logo de {name}',
  not_found_title: 'Introuvable',
  not_found_text: "Ce lien n'est pas valide ou n'existe plus.",
  redirect_not_allowed_title: 'Ce lien ne peut pas être utilisé',
  redirect_not_allowed_text:
    "L'adresse de retour de ce lien ne fait pas partie des adresses enregistrées de l'application : la page n'a pas été ouverte.",
  link_expired_title: 'Ce lien a expiré',
  link_expired_text: "Le délai d'approbation est dépassé : ce lien n'ouvre plus la demande.",
};

const DE: Dictionary = {
  page_title_consent: 'Einwilligung',
  page_title_approval: 'Freigabeanfrage',
  page_title_signature_request: 'Signaturanfrage',
  purposes: 'Wozu Sie Ihre Einwilligung geben sollen',
  purposes_intro: 'Entscheiden Sie für jeden Zweck einzeln. Nichts ist ausgewählt, bevor Sie wählen.',
  required: 'erforderlich',
  always_active: 'Immer aktiv: für die Erbringung des Dienstes nötig',
  policy: 'Datenschutzerklärung',
  disclosures: 'Hinweise',
  disclosures_intro: 'Bitte lesen Sie diese Hinweise, bevor Sie entscheiden.',
  evidence_label: 'Ich habe die obigen Hinweise gelesen und verstanden',
  evidence_submit: 'Verständnis bestätigen',
  ack_disclosures: 'Ich habe die Hinweise gelesen',
  step: 'Schritt {n} von {total}',
  step_sign_in: 'Weiter',
  step_start_checks: 'Prüfungen starten',
  step_review_terms: 'Bedingungen lesen',
  agree: 'Ich stimme zu',
  accept_all: 'Alle akzeptieren',
  reject_all: 'Alle ablehnen',
  save_choices: 'Auswahl bestätigen',
  decline: 'Ablehnen',
  proposed_action: 'Vorgeschlagene Aktion',
  bounds: 'Grenzen',
  trigger: 'Warum Sie gefragt werden',
  trigger_none: 'Manuelle Anfrage',
  agent: 'Agent',
  agent_provider: 'Anbieter',
  agent_model: 'Modell',
  not_reported: 'nicht angegeben',
  actions: 'Aktionen, die er ausführen möchte',
  scope: 'Angefragter Zugriff',
  amount: 'Betrag',
  no_amount: 'Kein Betrag',
  context: 'Betrifft',
  purpose: 'Zweck',
  counterparty: 'Gegenpartei',
  on_behalf_of: 'Im Auftrag von',
  jurisdiction: 'Rechtsordnung',
  grant_valid_until: 'Gültig bis, falls freigegeben',
  trigger_always: 'Jede Anfrage dieses Agenten braucht die Freigabe einer Person.',
  trigger_amount_over: 'Der Betrag von {amount} {currency} liegt über {limit} {currency}: höhere Beträge brauchen eine Freigabe.',
  trigger_actions: 'Diese Aktionen brauchen eine Freigabe: {names}.',
  trigger_scopes: 'Dieser Zugriff braucht eine Freigabe: {names}.',
  approve: 'Freigeben',
  deny: 'Ablehnen',
  counter: 'Änderung vorschlagen',
  counter_label: 'Ihr Gegenvorschlag',
  counter_submit: 'Gegenvorschlag senden',
  document: 'Zu unterzeichnendes Dokument',
  sign: 'Unterzeichnen',
  deadline: 'Entscheiden bis',
  status_loading: 'Wird geladen…',
  status_working: 'Ihre Antwort wird gespeichert…',
  status_done: 'Danke. Ihre Antwort wurde gespeichert: {outcome}.',
  status_done_purposes: 'Danke. Sie haben eingewilligt in: {names}.',
  status_expired: 'Diese Anfrage ist abgelaufen.',
  status_error: 'Etwas ist schiefgegangen. Bitte versuchen Sie es erneut.',
  outcome_granted: 'erteilt',
  outcome_declined: 'abgelehnt',
  outcome_approved: 'freigegeben',
  outcome_denied: 'abgelehnt',
  outcome_countered: 'Gegenvorschlag',
  outcome_signed: 'unterzeichnet',
  outcome_expired: 'abgelaufen',
  outcome_revoked: 'widerrufen',
  logo_alt: 'Logo von {name}',
  not_found_title: 'Nicht gefunden',
  not_found_text: 'Dieser Link ist ungültig oder existiert nicht mehr.',
  redirect_not_allowed_title: 'Dieser Link kann nicht verwendet werden',
  redirect_not_allowed_text:
    'Die Rücksprungadresse dieses Links gehört nicht zu den registrierten Adressen der Anwendung, daher wurde die Seite nicht geöffnet.',
  link_expired_title: 'Dieser Link ist abgelaufen',
  link_expired_text: 'Die Frist für die Genehmigung ist verstrichen, daher öffnet dieser Link die Anfrage nicht mehr.',
};

const ES: Dictionary = {
  page_title_consent: 'Consentimiento',
  page_title_approval: 'Solicitud de aprobación',
  page_title_signature_request: 'Solicitud de firma',
  purposes: 'A qué se le pide que dé su consentimiento',
  purposes_intro: 'Elija para cada finalidad. No hay nada seleccionado hasta que usted elija.',
  required: 'obligatorio',
  always_active: 'Siempre activo: necesario para prestar el servicio',
  policy: 'Política de privacidad',
  disclosures: 'Información previa',
  disclosures_intro: 'Lea esta información antes de decidir.',
  evidence_label: 'He leído y entendido la información anterior',
  evidence_submit: 'Confirmar que lo he entendido',
  ack_disclosures: 'He leído la información',
  step: 'Paso {n} de {total}',
  step_sign_in: 'Continuar',
  step_start_checks: 'Iniciar las comprobaciones',
  step_review_terms: 'Revisar las condiciones',
  agree: 'Acepto',
  accept_all: 'Aceptar todo',
  reject_all: 'Rechazar todo',
  save_choices: 'Confirmar mis opciones',
  decline: 'Rechazar',
  proposed_action: 'Acción propuesta',
  bounds: 'Límites',
  trigger: 'Por qué se le pregunta',
  trigger_none: 'Solicitud manual',
  agent: 'Agente',
  agent_provider: 'Proveedor',
  agent_model: 'Modelo',
  not_reported: 'no indicado',
  actions: 'Acciones que quiere realizar',
  scope: 'Acceso que solicita',
  amount: 'Importe',
  no_amount: 'Sin importe',
  context: 'Relativo a',
  purpose: 'Finalidad',
  counterparty: 'Contraparte',
  on_behalf_of: 'En nombre de',
  jurisdiction: 'Jurisdicción',
  grant_valid_until: 'Válido hasta, si se aprueba',
  trigger_always: 'Cada solicitud de este agente necesita la aprobación de una persona.',
  trigger_amount_over: 'El importe, {amount} {currency}, supera {limit} {currency}: los importes mayores necesitan aprobación.',
  trigger_actions: 'Estas acciones necesitan aprobación: {names}.',
  trigger_scopes: 'Este acceso necesita aprobación: {names}.',
  approve: 'Aprobar',
  deny: 'Denegar',
  counter: 'Proponer un cambio',
  counter_label: 'Su contrapropuesta',
  counter_submit: 'Enviar la contrapropuesta',
  document: 'Documento para firmar',
  sign: 'Firmar',
  deadline: 'Decida antes del',
  status_loading: 'Cargando…',
  status_working: 'Guardando su respuesta…',
  status_done: 'Gracias. Su respuesta se ha registrado: {outcome}.',
  status_done_purposes: 'Gracias. Ha aceptado: {names}.',
  status_expired: 'Esta solicitud ha caducado.',
  status_error: 'Algo ha fallado. Inténtelo de nuevo.',
  outcome_granted: 'concedido',
  outcome_declined: 'rechazado',
  outcome_approved: 'aprobado',
  outcome_denied: 'denegado',
  outcome_countered: 'contrapropuesta',
  outcome_signed: 'firmado',
  outcome_expired: 'caducado',
  outcome_revoked: 'retirado',
  logo_alt: 'Logotipo de {name}',
  not_found_title: 'No encontrado',
  not_found_text: 'Este enlace no es válido o ya no existe.',
  redirect_not_allowed_title: 'Este enlace no se puede usar',
  redirect_not_allowed_text:
    'La dirección de retorno de este enlace no es una de las direcciones registradas de la aplicación, así que la página no se abrió.',
  link_expired_title: 'Este enlace ha caducado',
  link_expired_text: 'El plazo de aprobación ha pasado, así que este enlace ya no abre la solicitud.',
};

const PT: Dictionary = {
  page_title_consent: 'Consentimento',
  page_title_approval: 'Pedido de aprovação',
  page_title_signature_request: 'Pedido de assinatura',
  purposes: 'Para que lhe pedem o consentimento',
  purposes_intro: 'Escolha para cada finalidade. Nada fica selecionado até escolher.',
  required: 'obrigatório',
  always_active: 'Sempre ativo: necessário para prestar o serviço',
  policy: 'Política de privacidade',
  disclosures: 'Informações prévias',
  disclosures_intro: 'Leia estas informações antes de decidir.',
  evidence_label: 'Li e compreendi as informações acima',
  evidence_submit: 'Confirmar que compreendi',
  ack_disclosures: 'Li as informações',
  step: 'Passo {n} de {total}',
  step_sign_in: 'Continuar',
  step_start_checks: 'Iniciar as verificações',
  step_review_terms: 'Rever as condições',
  agree: 'Concordo',
  accept_all: 'Aceitar tudo',
  reject_all: 'Rejeitar tudo',
  save_choices: 'Confirmar as minhas escolhas',
  decline: 'Recusar',
  proposed_action: 'Ação proposta',
  bounds: 'Limites',
  trigger: 'Porque lhe pedem',
  trigger_none: 'Pedido manual',
  agent: 'Agente',
  agent_provider: 'Fornecedor',
  agent_model: 'Modelo',
  not_reported: 'não indicado',
  actions: 'Ações que pretende executar',
  scope: 'Acesso que pede',
  amount: 'Montante',
  no_amount: 'Sem montante',
  context: 'Relativo a',
  purpose: 'Finalidade',
  counterparty: 'Contraparte',
  on_behalf_of: 'Em nome de',
  jurisdiction: 'Jurisdição',
  grant_valid_until: 'Válido até, se aprovado',
  trigger_always: 'Cada pedido deste agente precisa da aprovação de uma pessoa.',
  trigger_amount_over: 'O montante, {amount} {currency}, é superior a {limit} {currency}: montantes maiores precisam de aprovação.',
  trigger_actions: 'Estas ações precisam de aprovação: {names}.',
  trigger_scopes: 'Este acesso precisa de aprovação: {names}.',
  approve: 'Aprovar',
  deny: 'Negar',
  counter: 'Propor uma alteração',
  counter_label: 'A sua contraproposta',
  counter_submit: 'Enviar a contraproposta',
  document: 'Documento a assinar',
  sign: 'Assinar',
  deadline: 'Decida antes de',
  status_loading: 'A carregar…',
  status_working: 'A guardar a sua resposta…',
  status_done: 'Obrigado. A sua resposta foi registada: {outcome}.',
  status_done_purposes: 'Obrigado. Aceitou: {names}.',
  status_expired: 'Este pedido expirou.',
  status_error: 'Ocorreu um erro. Tente novamente.',
  outcome_granted: 'concedido',
  outcome_declined: 'recusado',
  outcome_approved: 'aprovado',
  outcome_denied: 'negado',
  outcome_countered: 'contraproposta',
  outcome_signed: 'assinado',
  outcome_expired: 'expirado',
  outcome_revoked: 'retirado',
  logo_alt: 'Logótipo de {name}',
  not_found_title: 'Não encontrado',
  not_found_text: 'Esta ligação não é válida ou já não existe.',
  redirect_not_allowed_title: 'Esta ligação não pode ser usada',
  redirect_not_allowed_text:
    'O endereço de retorno desta ligação não é um dos endereços registados da aplicação, por isso a página não foi aberta.',
  link_expired_title: 'Esta ligação expirou',
  link_expired_text: 'O prazo de aprovação terminou, por isso esta ligação já não abre o pedido.',
};

const JA: Dictionary = {
  page_title_consent: '同意',
  page_title_approval: '承認のお願い',
  page_title_signature_request: '署名のお願い',
  purposes: '同意をお願いする内容',
  purposes_intro: '目的ごとにお選びください。選択するまで何も選ばれていません。',
  required: '必須',
  always_active: '常に有効：サービスの提供に必要です',
  policy: 'プライバシーポリシー',
  disclosures: '事前のご説明',
  disclosures_intro: '決める前に、以下の説明をお読みください。',
  evidence_label: '上記の説明を読み、理解しました',
  evidence_submit: '理解したことを確認する',
  ack_disclosures: '説明を読みました',
  step: 'ステップ {n} / {total}',
  step_sign_in: '続ける',
  step_start_checks: '確認を開始する',
  step_review_terms: '条件を確認する',
  agree: '同意する',
  accept_all: 'すべて同意する',
  reject_all: 'すべて拒否する',
  save_choices: '選択を確定する',
  decline: '拒否する',
  proposed_action: '提案された操作',
  bounds: '制限',
  trigger: '確認をお願いする理由',
  trigger_none: '手動のリクエスト',
  agent: 'エージェント',
  agent_provider: '提供元',
  agent_model: 'モデル',
  not_reported: '未申告',
  actions: '実行しようとしている操作',
  scope: '求めているアクセス',
  amount: '金額',
  no_amount: '金額なし',
  context: '対象',
  purpose: '目的',
  counterparty: '取引相手',
  on_behalf_of: '代理対象',
  jurisdiction: '法域',
  grant_valid_until: '承認された場合の有効期限',
  trigger_always: 'このエージェントのすべてのリクエストには、人による承認が必要です。',
  trigger_amount_over: '金額 {amount} {currency} は {limit} {currency} を超えています。これを超える金額には承認が必要です。',
  trigger_actions: '次の操作には承認が必要です：{names}。',
  trigger_scopes: '次のアクセスには承認が必要です：{names}。',
  approve: '承認する',
  deny: '却下する',
  counter: '変更を提案する',
  counter_label: 'あなたの対案',
  counter_submit: '対案を送信する',
  document: '署名する文書',
  sign: '署名する',
  deadline: '回答期限',
  status_loading: '読み込み中…',
  status_working: '回答を保存しています…',
  status_done: 'ありがとうございました。回答を記録しました：{outcome}。',
  status_done_purposes: 'ありがとうございました。同意した内容：{names}。',
  status_expired: 'このリクエストは期限切れです。',
  status_error: '問題が発生しました。もう一度お試しください。',
  outcome_granted: '同意済み',
  outcome_declined: '拒否',
  outcome_approved: '承認済み',
  outcome_denied: '却下',
  outcome_countered: '対案あり',
  outcome_signed: '署名済み',
  outcome_expired: '期限切れ',
  outcome_revoked: '撤回済み',
  logo_alt: '{name} のロゴ',
  not_found_title: '見つかりません',
  not_found_text: 'このリンクは無効か、すでに存在しません。',
  redirect_not_allowed_title: 'このリンクは使用できません',
  redirect_not_allowed_text: 'このリンクの戻り先アドレスはアプリケーションに登録されたアドレスではないため、ページを開きませんでした。',
  link_expired_title: 'このリンクは期限切れです',
  link_expired_text: '承認の期限が過ぎたため、このリンクではリクエストを開けません。',
};

const DICTIONARIES: Readonly<Record<string, Dictionary>> = { en: EN, fr: FR, de: DE, es: ES, pt: PT, ja: JA };

/** Languages with a catalogue of their own (primary language subtags). */
export const SUPPORTED_LOCALES = Object.keys(DICTIONARIES);

/** Primary language subtags written right to left (none of today's catalogues; ready for ar, he, fa, ur). */
const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'sd', 'yi', 'dv', 'ug']);

function language(tag: string | null | undefined): string {
  return (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/** The supported language of a BCP 47 tag (`fr-CA` → `fr`), else `en`. */
export function resolveLocale(tag: string | null | undefined): string {
  const lang = language(tag);
  return lang in DICTIONARIES ? lang : 'en';
}

/** At most this many Accept-Language entries are read (the header is attacker-controlled). */
const MAX_LANGUAGE_RANGES = 32;

/**
 * The languages of an `Accept-Language` header (RFC 9110 §12.5.4) in order of preference: by
 * quality, then by position; `q=0` ranges and `*` are dropped, malformed ranges are skipped.
 */
export function acceptedLanguages(header: string | string[] | null | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const ranges: Array<{ tag: string; q: number; at: number }> = [];
  value
    .slice(0, 1024)
    .split(',')
    .slice(0, MAX_LANGUAGE_RANGES)
    .forEach((part, at) => {
      const [rawTag, ...params] = part.trim().split(';');
      const tag = (rawTag ?? '').trim();
      if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return;
      let q = 1;
      for (const param of params) {
        if (!/^\s*q\s*=/.test(param)) continue;
        const m = /^\s*q\s*=\s*([01](\.\d{0,3})?)\s*$/.exec(param);
        if (!m) return;
        q = Math.min(1, Number(m[1]));
      }
      if (q > 0) ranges.push({ tag, q, at });
    });
  return ranges.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.tag);
}

/**
 * The page's language: the browser's first `Accept-Language` language that has a catalogue,
 * else the flow's locale when it has one, else English.
 */
export function negotiateLocale(acceptLanguage: string | string[] | null | undefined, flowLocale?: string | null): string {
  for (const tag of acceptedLanguages(acceptLanguage)) {
    const lang = language(tag);
    if (lang in DICTIONARIES) return lang;
  }
  return resolveLocale(flowLocale);
}

/** `rtl` for a right-to-left language, else `ltr` (the `dir` attribute of the page). */
export function textDirection(locale: string | null | undefined): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(language(locale)) ? 'rtl' : 'ltr';
}

/** The full catalogue of a locale (English for a language without one). */
export function dictionary(locale: string): Dictionary {
  return DICTIONARIES[resolveLocale(locale)] ?? EN;
}

/** Fills `{name}` placeholders; an unknown placeholder stays as written. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

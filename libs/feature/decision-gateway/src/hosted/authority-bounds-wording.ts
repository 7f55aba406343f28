import { formatInstant } from './dates';
import { fill, resolveLocale } from './i18n';

/** The bounds of a proposed authority as far as the hosted proposal page words them (value, escalation, validity). */
export interface ProposedBounds {
  value_bounds?: { currency?: string; per_action?: string; per_month?: string; aggregate?: string; unrestricted?: boolean };
  escalation_bounds?: { amount_over?: string; always?: boolean };
}

interface Wording {
  per_action: string;
  per_month: string;
  aggregate: string;
  unlimited_value: string;
  no_payment: string;
  until: string;
  ask_above: string;
  ask_always: string;
  title: string;
  grant: string;
  decline: string;
}

const WORDING: Readonly<Record<string, Wording>> = {
  en: {
    per_action: 'may pay up to {amount} {currency} per action',
    per_month: '{amount} {currency} a month',
    aggregate: '{amount} {currency} in total',
    unlimited_value: 'may pay any amount',
    no_payment: 'may not pay anything',
    until: 'until {date}',
    ask_above: 'asking you above {amount} {currency}',
    ask_always: 'asking you before every action',
    title: '{agent} asks for your authority',
    grant: 'Grant',
    decline: 'Decline',
  },
  fr: {
    per_action: 'peut payer jusqu’à {amount} {currency} par action',
    per_month: '{amount} {currency} par mois',
    aggregate: '{amount} {currency} au total',
    unlimited_value: 'peut payer n’importe quel montant',
    no_payment: 'ne peut rien payer',
    until: 'jusqu’au {date}',
    ask_above: 'en vous demandant au-delà de {amount} {currency}',
    ask_always: 'en vous demandant avant chaque action',
    title: '{agent} vous demande votre autorisation',
    grant: 'Accorder',
    decline: 'Refuser',
  },
  de: {
    per_action: 'darf bis zu {amount} {currency} pro Aktion zahlen',
    per_month: '{amount} {currency} im Monat',
    aggregate: 'insgesamt {amount} {currency}',
    unlimited_value: 'darf jeden Betrag zahlen',
    no_payment: 'darf nichts zahlen',
    until: 'bis {date}',
    ask_above: 'fragt Sie über {amount} {currency}',
    ask_always: 'fragt Sie vor jeder Aktion',
    title: '{agent} bittet um Ihre Vollmacht',
    grant: 'Erteilen',
    decline: 'Ablehnen',
  },
  es: {
    per_action: 'puede pagar hasta {amount} {currency} por acción',
    per_month: '{amount} {currency} al mes',
    aggregate: '{amount} {currency} en total',
    unlimited_value: 'puede pagar cualquier importe',
    no_payment: 'no puede pagar nada',
    until: 'hasta el {date}',
    ask_above: 'preguntándole por encima de {amount} {currency}',
    ask_always: 'preguntándole antes de cada acción',
    title: '{agent} le pide su autorización',
    grant: 'Conceder',
    decline: 'Rechazar',
  },
  pt: {
    per_action: 'pode pagar até {amount} {currency} por ação',
    per_month: '{amount} {currency} por mês',
    aggregate: '{amount} {currency} no total',
    unlimited_value: 'pode pagar qualquer valor',
    no_payment: 'não pode pagar nada',
    until: 'até {date}',
    ask_above: 'perguntando a você acima de {amount} {currency}',
    ask_always: 'perguntando a você antes de cada ação',
    title: '{agent} pede a sua autorização',
    grant: 'Conceder',
    decline: 'Recusar',
  },
  ja: {
    per_action: '1回の操作につき最大 {amount} {currency} まで支払えます',
    per_month: '1か月あたり {amount} {currency} まで',
    aggregate: '合計 {amount} {currency} まで',
    unlimited_value: '金額の上限なく支払えます',
    no_payment: '支払いはできません',
    until: '{date} まで',
    ask_above: '{amount} {currency} を超える場合はあなたに確認します',
    ask_always: '操作のたびにあなたに確認します',
    title: '{agent} があなたの権限を求めています',
    grant: '許可する',
    decline: '拒否する',
  },
};

/**
 * The bounds of a proposed authority in plain words in the page's language, one phrase per bound:
 * "may pay up to 50.00 EUR per action", "200.00 EUR a month", "1000.00 EUR in total", "until …", "asking you above 20.00 EUR".
 * Amounts are written as the decimal strings the authority holds, never re-rounded.
 */
export function describeBounds(bounds: ProposedBounds, validUntil: string, locale: string): string[] {
  const words = WORDING[resolveLocale(locale)] ?? WORDING['en']!;
  const phrases: string[] = [];
  const value = bounds.value_bounds;
  const currency = value?.currency ?? '';
  if (!value) phrases.push(words.no_payment);
  else if (value.unrestricted) phrases.push(words.unlimited_value);
  else {
    if (value.per_action !== undefined) phrases.push(fill(words.per_action, { amount: value.per_action, currency }));
    if (value.per_month !== undefined) phrases.push(fill(words.per_month, { amount: value.per_month, currency }));
    if (value.aggregate !== undefined) phrases.push(fill(words.aggregate, { amount: value.aggregate, currency }));
  }
  phrases.push(fill(words.until, { date: formatInstant(validUntil, resolveLocale(locale)) }));
  const escalation = bounds.escalation_bounds;
  if (escalation?.always) phrases.push(words.ask_always);
  else if (escalation?.amount_over !== undefined) phrases.push(fill(words.ask_above, { amount: escalation.amount_over, currency }));
  return phrases;
}

/** The page's heading and its two answers in the page's language. */
export function proposalPageWords(agent: string, locale: string): { title: string; grant: string; decline: string } {
  const words = WORDING[resolveLocale(locale)] ?? WORDING['en']!;
  return { title: fill(words.title, { agent }), grant: words.grant, decline: words.decline };
}

/** Every language the proposal page speaks (the hosted pages' six). */
export const PROPOSAL_LOCALES = Object.keys(WORDING);

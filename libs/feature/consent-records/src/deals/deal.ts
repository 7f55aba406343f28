/**
 * Data deals (Protect surface; spec, "Data deal"): a party's licence of data use and the offers
 * made under it to one person. An offer moves `draft → offered → countered ↔ user_revised →
 * accepted / declined / expired`; the spec leaves the triggers open, these are ours (published in
 * the feature's README and the OpenAPI document):
 *
 * | move      | by          | from                           | to           |
 * |-----------|-------------|--------------------------------|--------------|
 * | send      | application | draft                          | offered      |
 * | counter   | application | offered, user_revised          | countered    |
 * | revise    | person      | offered, countered             | user_revised |
 * | accept    | person      | offered, countered             | accepted     |
 * | accept    | application | user_revised                   | accepted     |
 * | decline   | person      | offered, countered, user_revised | declined   |
 * | decline   | application | user_revised                   | declined     |
 * | (time)    | platform    | offered, countered, user_revised | expired    |
 *
 * Each side accepts only the other side's latest terms: the person accepts the party's offer or
 * counter, the party accepts the person's revision. An open offer whose `expires_at` has passed is
 * expired: no move applies to it any more (410 `offer_expired`). Accepting writes the consent
 * record of the agreed terms in the same transaction (its receipt follows as for any record).
 */

export const DEAL_STATES = ['draft', 'offered', 'countered', 'user_revised', 'accepted', 'declined', 'expired'] as const;
export type DealState = (typeof DEAL_STATES)[number];

export const DEAL_MOVES = ['send', 'counter', 'revise', 'accept', 'decline'] as const;
export type DealMove = (typeof DEAL_MOVES)[number];

/** Who makes a move: the offering application, or the person the offer is made to (relayed by the application's server). */
export type DealActor = 'application' | 'person';

/** States in which an offer waits for an answer, and so can expire. */
export const OPEN_STATES: readonly DealState[] = ['offered', 'countered', 'user_revised'];

/** The trigger table above: from-states per (move, actor), and the resulting state. */
export const DEAL_TRIGGERS: ReadonlyArray<{ move: DealMove; actor: DealActor; from: readonly DealState[]; to: DealState }> = [
  { move: 'send', actor: 'application', from: ['draft'], to: 'offered' },
  { move: 'counter', actor: 'application', from: ['offered', 'user_revised'], to: 'countered' },
  { move: 'revise', actor: 'person', from: ['offered', 'countered'], to: 'user_revised' },
  { move: 'accept', actor: 'person', from: ['offered', 'countered'], to: 'accepted' },
  { move: 'accept', actor: 'application', from: ['user_revised'], to: 'accepted' },
  { move: 'decline', actor: 'person', from: ['offered', 'countered', 'user_revised'], to: 'declined' },
  { move: 'decline', actor: 'application', from: ['user_revised'], to: 'declined' },
];

/** Terms of data use: what a licence allows at most, and what an offer proposes. */
export interface DealTerms {
  /** Purpose keys of the licence's flow. */
  purposes: string[];
  data_categories: string[];
  /** ISO 8601 duration of the use from acceptance. */
  duration: string;
  /** null: no price. */
  price: { amount: string; currency: string } | null;
  recipients: DealRecipient[];
}

/**
 * A party the data goes to. On a licence it may name the public JWK personal data is encrypted to
 * in a secure transfer, and the country it receives data in (a transfer crossing a border is
 * written to the transfer register first).
 */
export interface DealRecipient {
  party_id: string;
  name: string;
  public_jwk?: Record<string, unknown>;
  country?: string;
}

/** The state an offer is in at `now`: an open offer past its `expires_at` is expired. */
export function effectiveState(state: DealState, expiresAt: Date | null, now: Date): DealState {
  if (OPEN_STATES.includes(state) && expiresAt !== null && expiresAt.getTime() <= now.getTime()) return 'expired';
  return state;
}

/** The state `move` by `actor` leads to from `from`, or undefined when the table has no such trigger. */
export function nextState(from: DealState, move: DealMove, actor: DealActor): DealState | undefined {
  return DEAL_TRIGGERS.find((t) => t.move === move && t.actor === actor && t.from.includes(from))?.to;
}

/**
 * Terms proposed under a licence must stay within it: purposes, data categories and recipients
 * are subsets of the licence's; the first field that leaves it is returned.
 */
export function termsOutsideLicense(terms: DealTerms, license: DealTerms): { field: string; value: string } | undefined {
  for (const purpose of terms.purposes) if (!license.purposes.includes(purpose)) return { field: 'purposes', value: purpose };
  for (const category of terms.data_categories)
    if (!license.data_categories.includes(category)) return { field: 'data_categories', value: category };
  for (const recipient of terms.recipients)
    if (!license.recipients.some((r) => r.party_id === recipient.party_id)) return { field: 'recipients', value: recipient.party_id };
  return undefined;
}

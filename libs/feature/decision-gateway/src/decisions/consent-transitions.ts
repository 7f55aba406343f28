import type { ConsentStatus } from './decision';

/** Person-driven moves of a consent session (spec, Consent token / session status). */
export const CONSENT_ACTIONS = [
  'sign_in',
  'start_checks',
  'review_terms',
  'present_disclosures',
  'capture_evidence',
  'complete',
  'decline',
  'revoke',
] as const;
export type ConsentAction = (typeof CONSENT_ACTIONS)[number];

type Path = 'standard' | 'informed';

interface Move {
  from: readonly ConsentStatus[];
  to: ConsentStatus;
  path?: Path;
}

const IN_FLIGHT: readonly ConsentStatus[] = ['pending', 'authenticating', 'verifying', 'reviewing', 'informed', 'evidenced'];

/**
 * The spec's transition table, one row per trigger. `complete` leaves `reviewing` on the standard
 * path and `evidenced` on the informed-consent path. `decline` ends any in-flight session as
 * `expired` (the nine statuses have no "declined": the token is then never valid) with outcome
 * `declined`. `revoke` withdraws a fulfilled consent.
 */
const MOVES: Readonly<Record<ConsentAction, readonly Move[]>> = {
  sign_in: [{ from: ['pending'], to: 'authenticating', path: 'standard' }],
  start_checks: [{ from: ['authenticating'], to: 'verifying', path: 'standard' }],
  review_terms: [{ from: ['verifying'], to: 'reviewing', path: 'standard' }],
  present_disclosures: [{ from: ['pending'], to: 'informed', path: 'informed' }],
  capture_evidence: [{ from: ['informed'], to: 'evidenced', path: 'informed' }],
  complete: [
    { from: ['reviewing'], to: 'fulfilled', path: 'standard' },
    { from: ['evidenced'], to: 'fulfilled', path: 'informed' },
  ],
  decline: [{ from: IN_FLIGHT, to: 'expired' }],
  revoke: [{ from: ['fulfilled'], to: 'revoked' }],
};

/** The status `action` leads to from `from` on `path`, or undefined when the table has no such move. */
export function nextConsentStatus(from: ConsentStatus, action: ConsentAction, path: Path): ConsentStatus | undefined {
  return MOVES[action].find((move) => move.from.includes(from) && (move.path === undefined || move.path === path))?.to;
}

/** Actions the table allows from `from` on `path` (what a hosted page may offer next). */
export function allowedConsentActions(from: ConsentStatus, path: Path): ConsentAction[] {
  return CONSENT_ACTIONS.filter((action) => nextConsentStatus(from, action, path) !== undefined);
}

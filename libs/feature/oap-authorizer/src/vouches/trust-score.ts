/**
 * The published trust-score formula of the Verify surface (`GET /api/v1/trust_scores/:subject`,
 * cascade step 9). Pure: the repository gathers the inputs, this computes the score.
 *
 *   score = clamp(0, 100, round(
 *       min(70, Σ weight of active vouches)           vouches: not revoked, not expired
 *     + min(30, allowed grants in the last 90 days)   the agent's own decision history
 *     + min(20, 2 × accepted attestations in 90 days) its attestation history (verified
 *                                                      agent attestations kept with its grants)
 *     − 10 × grants of the agent revoked in the last 90 days
 *     − min(30, 2 × denials in the last 30 days, step 9 denials excluded)
 *   ))
 *
 * Vouches alone reach at most 70: a subject needs a clean history to score higher. An accepted
 * attestation is one the authorizer verified (a trusted provider's signature, audience, expiry, no
 * replay) and kept for the grant it came with, at the grant request or a refresh; a rejected one
 * never reaches a grant, and what follows from it (a denial, a revocation) is counted below. Denials at step 9
 * itself are not counted, so a low score cannot push itself lower by being checked. A person has no
 * grant history of their own; their score is the vouch term only.
 */
export const TRUST_SCORE_FORMULA =
  'clamp(0, 100, round(min(70, vouch_weight_total) + min(30, allowed_grants_90d) + min(20, 2 * attestations_90d) - 10 * revoked_grants_90d - min(30, 2 * denials_30d)))';

/** Version of {@link TRUST_SCORE_FORMULA}; bumped whenever the formula changes. */
export const TRUST_SCORE_FORMULA_VERSION = '2';

/** Ceiling of the vouch term. */
export const VOUCH_TERM_MAX = 70;
/** Ceiling of the history term. */
export const HISTORY_TERM_MAX = 30;
/** Points per accepted attestation, and their ceiling. */
export const ATTESTATION_POINTS = 2;
export const ATTESTATION_TERM_MAX = 20;
/** Points taken per revoked grant. */
export const REVOCATION_PENALTY = 10;
/** Points taken per denial, and their ceiling. */
export const DENIAL_PENALTY = 2;
export const DENIAL_PENALTY_MAX = 30;

/** What the score is computed from, as published with it. */
export interface TrustScoreInputs {
  /** Active (not revoked, not expired) vouches for the subject. */
  vouch_count: number;
  /** Sum of their weights (each 1–50). */
  vouch_weight_total: number;
  /** Grants allowed to the agent in the last 90 days (0 for a person). */
  allowed_grants_90d: number;
  /** Agent attestations accepted with the agent's grants in the last 90 days (0 for a person). */
  attestations_90d: number;
  /** Grants of the agent revoked in the last 90 days (0 for a person). */
  revoked_grants_90d: number;
  /** Grant requests of the agent denied in the last 30 days, step 9 excluded (0 for a person). */
  denials_30d: number;
}

/** The score, an integer 0–100, of {@link TRUST_SCORE_FORMULA}. */
export function trustScore(inputs: TrustScoreInputs): number {
  const raw =
    Math.min(VOUCH_TERM_MAX, inputs.vouch_weight_total) +
    Math.min(HISTORY_TERM_MAX, inputs.allowed_grants_90d) +
    Math.min(ATTESTATION_TERM_MAX, ATTESTATION_POINTS * inputs.attestations_90d) -
    REVOCATION_PENALTY * inputs.revoked_grants_90d -
    Math.min(DENIAL_PENALTY_MAX, DENIAL_PENALTY * inputs.denials_30d);
  return Math.max(0, Math.min(100, Math.round(raw)));
}

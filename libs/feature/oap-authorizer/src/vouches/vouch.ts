import type { VouchResponse } from './vouch.response';

/** Who vouches: the authenticated caller (an application's API token, a person's access token, an attester's token). */
export type VoucherType = 'application' | 'person' | 'attester';
/** What is vouched for. */
export type SubjectType = 'agent' | 'person';

/** Closed list of vouch reason codes. */
export const VOUCH_REASON_CODES = [
  'verified_identity',
  'successful_transactions',
  'operator_attestation',
  'security_review',
  'community_endorsement',
  'other',
] as const;
export type VouchReasonCode = (typeof VOUCH_REASON_CODES)[number];

/** Weight of one vouch: 1–50 points of the vouch term (which tops out at 70). */
export const VOUCH_WEIGHT_MAX = 50;
/** Longest a vouch may run before it must be renewed, days. */
export const VOUCH_MAX_DAYS = 366;

/** A vouch as stored. */
export interface Vouch {
  id: string;
  applicationId: string;
  voucherType: VoucherType;
  voucherId: string;
  subjectType: SubjectType;
  subjectId: string;
  weight: number;
  reasonCode: VouchReasonCode;
  expiresAt: Date;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The status a reader sees at `now`. */
export function vouchStatus(vouch: Vouch, now: Date): 'active' | 'revoked' | 'expired' {
  if (vouch.revokedAt) return 'revoked';
  return vouch.expiresAt <= now ? 'expired' : 'active';
}

/** The wire shape of a vouch. */
export function vouchView(vouch: Vouch, now: Date): VouchResponse {
  return {
    object: 'vouch',
    id: vouch.id,
    voucher: { type: vouch.voucherType, id: vouch.voucherId },
    subject: vouch.subjectId,
    subject_type: vouch.subjectType,
    weight: vouch.weight,
    reason_code: vouch.reasonCode,
    expires_at: vouch.expiresAt.toISOString(),
    status: vouchStatus(vouch, now),
    created_at: vouch.createdAt.toISOString(),
    revoked_at: vouch.revokedAt?.toISOString() ?? null,
  } satisfies VouchResponse;
}

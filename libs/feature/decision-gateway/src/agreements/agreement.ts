import type { QuorumType } from '../decisions/decision';
import type { Vote } from '../decisions/quorum';

/**
 * Agreement states (spec, States: Agreement (multi-party)): `pending` → `partially_signed` →
 * `active`, binding once the quorum of signatures is reached. The moves the spec does not show,
 * ours: `declined` once the quorum can no longer be reached (a decline or counter of enough
 * parties), `expired` when it can no longer be reached because signers let their deadline pass
 * (no decline or counter among the missing votes), `withdrawn` by the application before the
 * outcome. The last four are final; a vote after them is refused (409 `agreement_decided`).
 */
export const AGREEMENT_STATUSES = ['pending', 'partially_signed', 'active', 'declined', 'expired', 'withdrawn'] as const;
export type AgreementStatus = (typeof AGREEMENT_STATUSES)[number];

/** Statuses in which parties may still answer. */
export const OPEN_AGREEMENT_STATUSES: readonly AgreementStatus[] = ['pending', 'partially_signed'];

/** A signer's outcomes (spec, States: Signing decision). */
export const SIGNING_OUTCOMES = ['signed', 'declined', 'expired', 'countered'] as const;
export type SigningOutcome = (typeof SIGNING_OUTCOMES)[number];

/** How each signing outcome counts in the quorum: an expiry counts against, like a decline. */
export const VOTE_OF: Readonly<Record<SigningOutcome, Vote>> = { signed: 'yes', declined: 'no', expired: 'no', countered: 'counter' };

/** Media types a document may have. Text documents are shown on the signing page. */
export const DOCUMENT_MEDIA_TYPES = ['text/plain', 'text/markdown', 'application/pdf', 'application/json'] as const;

/** Largest document, in bytes (its base64 still fits the default 1 MiB body). */
export const MAX_DOCUMENT_BYTES = 512 * 1024;

/** `typ` of a party's receipt (one signing outcome) and of nothing else. */
export const SIGNATURE_RECEIPT_TYP = 'svc-signature+jws';

/** A session's `reference` for an agreement's party: `<agr_…>/<pty_…>`, and `/<amd_…>` for a vote on an amendment. */
export const PARTY_REFERENCE = /^(agr_[a-z]+_[a-z2-7]{20})\/(pty_[a-z2-7]{20})(?:\/(amd_[a-z2-7]{20}))?$/;

/**
 * Amendment states: `pending` → `partially_signed` → `adopted` (the agreement's quorum of
 * signatures: the amendment's document becomes the agreement's), or `rejected` (the quorum can
 * no longer be reached: declines or counters) or `expired` (only deadlines passed). The last
 * three are final; a vote after them is refused (409 `amendment_decided`).
 */
export const AMENDMENT_STATUSES = ['pending', 'partially_signed', 'adopted', 'rejected', 'expired'] as const;
export type AmendmentStatus = (typeof AMENDMENT_STATUSES)[number];
export const OPEN_AMENDMENT_STATUSES: readonly AmendmentStatus[] = ['pending', 'partially_signed'];

export interface Amendment {
  id: string;
  agreementId: string;
  number: number;
  documentSha256: string;
  previousDocumentSha256: string;
  status: AmendmentStatus;
  deadline: Date;
  createdAt: Date;
  updatedAt: Date;
  decidedAt: Date | null;
}

/** A party's signing session and answer on one amendment. */
export interface AmendmentParty {
  amendmentId: string;
  partyId: string;
  sessionTokenSha256: string | null;
  decisionUrl: string;
  outcome: SigningOutcome | null;
  receiptJws: string | null;
  decidedAt: Date | null;
}

/** The amendment's status after a set of votes (see {@link statusAfter}). */
export function amendmentStatusAfter(
  tally: { yes: number; no: number; counter: number; expired: number },
  decided: Vote | undefined,
): AmendmentStatus {
  if (decided === 'yes') return 'adopted';
  if (decided !== undefined) return tally.no === tally.expired && tally.counter === 0 ? 'expired' : 'rejected';
  return tally.yes > 0 ? 'partially_signed' : 'pending';
}

export interface Agreement {
  id: string;
  applicationId: string;
  title: string;
  documentSha256: string;
  quorumType: QuorumType;
  quorumThreshold: number | null;
  quorumRequired: number;
  status: AgreementStatus;
  deadline: Date;
  createdAt: Date;
  updatedAt: Date;
  decidedAt: Date | null;
  /** The document in force: the last adopted amendment's; null while it is the original (`documentSha256`). */
  currentDocumentSha256: string | null;
}

export interface AgreementParty {
  id: string;
  agreementId: string;
  position: number;
  role: string;
  /** The signer, `usr_<region>_…` (a person of another region stays identified only by this pseudonymous id here). */
  personId: string;
  homeRegion: string;
  /** The signing session's digest when the signer is homed here; null when their home region holds it. */
  sessionTokenSha256: string | null;
  decisionUrl: string;
  outcome: SigningOutcome | null;
  receiptJws: string | null;
  counterProposal: Record<string, unknown> | null;
  decidedAt: Date | null;
}

export interface AgreementDocument {
  sha256: string;
  mediaType: string;
  sizeBytes: number;
  content: Buffer;
}

/** The claims of a party's receipt (a compact JWS by the region where the signer answered). */
export interface SignatureReceiptClaims {
  iss: string;
  iat: number;
  agreement_id: string;
  party_id: string;
  role: string;
  /** The signer's person id. */
  signer: string;
  document_sha256: string;
  outcome: SigningOutcome;
  decided_at: string;
  quorum: { type: QuorumType; required: number };
  /** Present on `countered` only: the proposed change. */
  counter_proposal?: Record<string, unknown>;
  /** Present on a vote on an amendment (`amd_…`); `document_sha256` is then the amendment's document. */
  amendment_id?: string;
  /** Present when the signer signed in with a passkey: the sign-in methods (RFC 8176). */
  amr?: string[];
  /**
   * How the signer proved it was them for this answer (absent on `expired`): `passkey` (their
   * assertion is bound in `passkey_assertion`) or `session` (signed in on the page, no passkey).
   */
  signer_authentication?: SignerAuthentication;
  /** On `signed` by a signer with a passkey: their WebAuthn assertion over this signature. */
  passkey_assertion?: PasskeyAssertion;
}

export type SignerAuthentication = 'passkey' | 'session';

/**
 * A signer's WebAuthn assertion bound into their signature. `challenge` is the signature's
 * challenge (see `signatureChallenge`); the verifier checks `signature` over
 * `authenticator_data || SHA-256(client_data_json)` with `public_key`, the challenge and type in
 * the client data, and the relying party hash against the receipt's issuer host. Bytes are
 * base64url, as the browser returns them.
 */
export interface PasskeyAssertion {
  credential_id: string;
  /** The registered credential's public key, as a JWK. */
  public_key: Record<string, string>;
  challenge: string;
  authenticator_data: string;
  client_data_json: string;
  signature: string;
  user_verified: boolean;
}

/** The agreement's status after a set of votes, and whether that status is final. */
export function statusAfter(
  tally: { yes: number; no: number; counter: number; expired: number },
  parties: number,
  required: number,
  decided: Vote | undefined,
): AgreementStatus {
  if (decided === 'yes') return 'active';
  if (decided !== undefined) return tally.no === tally.expired && tally.counter === 0 ? 'expired' : 'declined';
  return tally.yes > 0 ? 'partially_signed' : 'pending';
}

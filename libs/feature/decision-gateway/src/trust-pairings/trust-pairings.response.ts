import { Type } from 'class-transformer';
import { IsArray, IsIn, IsString, ValidateNested } from 'class-validator';
import { COUNTERPARTY_SCOPES, type CounterpartyScope } from '@svc/auth';
import { Nullable } from '@svc/server';
import { TRUST_PAIRING_STATUSES, type TrustPairing, type TrustPairingRole, type TrustPairingStatus } from './trust-pairing';

/** A trust pairing as one of its two applications reads it; never holds the token. */
export class TrustPairingResponse {
  /** `tpr_<region>_…` */
  @IsString() id!: string;
  @IsIn(['trust_pairing']) object!: 'trust_pairing';
  @IsString() name!: string;
  /** The application whose runtime receipts and consent status the counterparty may check. */
  @IsString() issuer_application_id!: string;
  /** The application that holds the counterparty token. */
  @IsString() counterparty_application_id!: string;
  /** The caller's side. */
  @IsIn(['issuer', 'counterparty']) role!: TrustPairingRole;
  @IsArray() @IsIn(COUNTERPARTY_SCOPES, { each: true }) scopes!: CounterpartyScope[];
  /** proposed → active | declined (by the counterparty); proposed or active → revoked (by either side). */
  @IsIn(TRUST_PAIRING_STATUSES) status!: TrustPairingStatus;
  @IsString() proposed_at!: string;
  @IsString() @Nullable() accepted_at!: string | null;
  @IsString() @Nullable() declined_at!: string | null;
  @IsString() @Nullable() revoked_at!: string | null;
  /** The application that revoked it; null until revoked. */
  @IsString() @Nullable() revoked_by!: string | null;
}

/** 200 of an acceptance: the pairing and its counterparty token, shown this once. */
export class AcceptedTrustPairingResponse {
  @IsIn(['trust_pairing_acceptance']) object!: 'trust_pairing_acceptance';
  @ValidateNested() @Type(() => TrustPairingResponse) trust_pairing!: TrustPairingResponse;
  /**
   * `ctp_<region>_…`: the counterparty bearer token of `POST /.well-known/svc-verify` (and of the
   * issuer's consent status with `consent_status:read`). Shown once, kept only as its SHA-256.
   */
  @IsString() counterparty_token!: string;
}

export function trustPairingView(p: TrustPairing, role: TrustPairingRole): TrustPairingResponse {
  return {
    id: p.id,
    object: 'trust_pairing',
    name: p.name,
    issuer_application_id: p.issuerApplicationId,
    counterparty_application_id: p.counterpartyApplicationId,
    role,
    scopes: [...p.scopes],
    status: p.status,
    proposed_at: p.proposedAt.toISOString(),
    accepted_at: p.acceptedAt?.toISOString() ?? null,
    declined_at: p.declinedAt?.toISOString() ?? null,
    revoked_at: p.revokedAt?.toISOString() ?? null,
    revoked_by: p.revokedBy,
  };
}

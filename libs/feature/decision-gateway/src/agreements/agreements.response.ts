import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import { QUORUM_TYPES, type QuorumType } from '../decisions/decision';
import { AGREEMENT_STATUSES, SIGNING_OUTCOMES, type Agreement, type AgreementParty, type AgreementStatus, type SigningOutcome } from './agreement';

export class AgreementDocumentResponse {
  /** Lowercase hex SHA-256 of the document's bytes: the document's address. */
  @IsString() sha256!: string;
  @IsString() media_type!: string;
  @IsInt() size_bytes!: number;
}

export class AgreementQuorumResponse {
  @IsIn([...QUORUM_TYPES]) type!: QuorumType;
  /** The count given with `threshold`; null otherwise. */
  @IsInt() @Nullable() threshold!: number | null;
  /** Signatures that make the agreement binding. */
  @IsInt() required!: number;
}

export class AgreementPartyResponse {
  /** `pty_…` */
  @IsString() id!: string;
  @IsString() role!: string;
  @IsString() person_id!: string;
  /** The region where the signer signs (their home). */
  @IsString() home_region!: string;
  /** The signer's signing page, in their home region; they sign in there. */
  @IsString() decision_url!: string;
  /** signed | declined | expired | countered; null while the signer has not answered. */
  @IsIn([...SIGNING_OUTCOMES]) @Nullable() outcome!: SigningOutcome | null;
  /** The receipt of the outcome: a compact JWS (EdDSA, typ `svc-signature+jws`) by the region where the signer answered. */
  @IsString() @Nullable() receipt_jws!: string | null;
  @IsString() @Nullable() decided_at!: string | null;
}

/** A multi-party agreement as its application reads it. */
export class AgreementResponse {
  /** `agr_<region>_…` */
  @IsString() id!: string;
  @IsIn(['agreement']) object!: 'agreement';
  @IsString() title!: string;
  /** pending → partially_signed → active; or declined, expired, withdrawn. */
  @IsIn([...AGREEMENT_STATUSES]) status!: AgreementStatus;
  @ValidateNested() @Type(() => AgreementDocumentResponse) document!: AgreementDocumentResponse;
  @ValidateNested() @Type(() => AgreementQuorumResponse) quorum!: AgreementQuorumResponse;
  @ValidateNested({ each: true }) @Type(() => AgreementPartyResponse) parties!: AgreementPartyResponse[];
  @IsString() deadline!: string;
  @IsString() created_at!: string;
  /** When the outcome (active, declined, expired, withdrawn) was reached; null before. */
  @IsString() @Nullable() decided_at!: string | null;
  /** The receipt: every signature, verifiable offline (`svc-receipt verify-agreement`). */
  @IsString() receipt_url!: string;
}

export class AgreementReceiptQuorumResponse {
  @IsIn([...QUORUM_TYPES]) type!: QuorumType;
  @IsInt() required!: number;
}

/**
 * The agreement's receipt: the set of its parties' receipts (each a compact JWS by the region where
 * the signer answered), served as RFC 8785 canonical JSON so that any changed byte fails
 * `svc-receipt verify-agreement`.
 */
export class AgreementReceiptResponse {
  @IsIn(['agreement_receipt']) object!: 'agreement_receipt';
  @IsString() agreement_id!: string;
  @IsString() document_sha256!: string;
  @IsIn([...AGREEMENT_STATUSES]) status!: AgreementStatus;
  @ValidateNested() @Type(() => AgreementReceiptQuorumResponse) quorum!: AgreementReceiptQuorumResponse;
  /** The receipts of every answer so far, in party order; binding once `required` of them are `signed`. */
  @IsString({ each: true }) signatures!: string[];
}

export function agreementView(agreement: Agreement, parties: AgreementParty[], document: { mediaType: string; sizeBytes: number }, publicBaseUrl: string): AgreementResponse {
  return {
    id: agreement.id,
    object: 'agreement',
    title: agreement.title,
    status: agreement.status,
    document: { sha256: agreement.documentSha256, media_type: document.mediaType, size_bytes: document.sizeBytes },
    quorum: { type: agreement.quorumType, threshold: agreement.quorumThreshold, required: agreement.quorumRequired },
    parties: parties.map((p) => ({
      id: p.id,
      role: p.role,
      person_id: p.personId,
      home_region: p.homeRegion,
      decision_url: p.decisionUrl,
      outcome: p.outcome,
      receipt_jws: p.receiptJws,
      decided_at: p.decidedAt?.toISOString() ?? null,
    })),
    deadline: agreement.deadline.toISOString(),
    created_at: agreement.createdAt.toISOString(),
    decided_at: agreement.decidedAt?.toISOString() ?? null,
    receipt_url: `${publicBaseUrl}/api/v1/agreements/${agreement.id}/receipt`,
  };
}

export function agreementReceipt(agreement: Agreement, parties: AgreementParty[]): AgreementReceiptResponse {
  return {
    object: 'agreement_receipt',
    agreement_id: agreement.id,
    document_sha256: agreement.documentSha256,
    status: agreement.status,
    quorum: { type: agreement.quorumType, required: agreement.quorumRequired },
    signatures: parties.flatMap((p) => (p.receiptJws ? [p.receiptJws] : [])),
  };
}

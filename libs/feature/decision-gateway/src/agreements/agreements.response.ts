import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import { QUORUM_TYPES, type QuorumType } from '../decisions/decision';
import {
  AGREEMENT_STATUSES,
  AMENDMENT_STATUSES,
  SIGNING_OUTCOMES,
  type Agreement,
  type AgreementParty,
  type AgreementStatus,
  type Amendment,
  type AmendmentParty,
  type AmendmentStatus,
  type SigningOutcome,
} from './agreement';

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
  /** Lowercase hex SHA-256 of the document in force: the last adopted amendment's, else `document.sha256`. */
  @IsString() current_document_sha256!: string;
  /** Amendments proposed so far (GET …/amendments lists them). */
  @IsInt() amendments!: number;
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
  /** Present once the agreement was amended: each amendment in order, with its votes' receipts (the chain of documents). */
  @IsOptional() @ValidateNested({ each: true }) @Type(() => AmendmentReceiptResponse) amendments?: AmendmentReceiptResponse[];
}

/** One amendment in the agreement's receipt: the document it replaces, its own and every vote's receipt. */
export class AmendmentReceiptResponse {
  @IsString() amendment_id!: string;
  @IsInt() number!: number;
  @IsString() previous_document_sha256!: string;
  @IsString() document_sha256!: string;
  @IsIn([...AMENDMENT_STATUSES]) status!: AmendmentStatus;
  @IsString({ each: true }) signatures!: string[];
}

export class AmendmentPartyResponse {
  /** The agreement's party (`pty_…`). */
  @IsString() party_id!: string;
  @IsString() role!: string;
  /** The party's voting page for this amendment, in their home region. */
  @IsString() decision_url!: string;
  @IsIn([...SIGNING_OUTCOMES]) @Nullable() outcome!: SigningOutcome | null;
  /** The receipt of the vote (a compact JWS naming the amendment and its document). */
  @IsString() @Nullable() receipt_jws!: string | null;
  @IsString() @Nullable() decided_at!: string | null;
}

/** An amendment of an active agreement: a new document voted by its parties under its quorum. */
export class AmendmentResponse {
  /** `amd_…` */
  @IsString() id!: string;
  @IsIn(['agreement_amendment']) object!: 'agreement_amendment';
  @IsString() agreement_id!: string;
  /** 1 for the first amendment of the agreement, then 2… */
  @IsInt() number!: number;
  /** pending → partially_signed → adopted; or rejected, expired. */
  @IsIn([...AMENDMENT_STATUSES]) status!: AmendmentStatus;
  @ValidateNested() @Type(() => AgreementDocumentResponse) document!: AgreementDocumentResponse;
  /** The document it replaces (the one in force when it was proposed). */
  @IsString() previous_document_sha256!: string;
  @ValidateNested({ each: true }) @Type(() => AmendmentPartyResponse) parties!: AmendmentPartyResponse[];
  @IsString() deadline!: string;
  @IsString() created_at!: string;
  @IsString() @Nullable() decided_at!: string | null;
}

export function amendmentView(
  amendment: Amendment,
  answers: AmendmentParty[],
  parties: AgreementParty[],
  document: { mediaType: string; sizeBytes: number },
): AmendmentResponse {
  return {
    id: amendment.id,
    object: 'agreement_amendment',
    agreement_id: amendment.agreementId,
    number: amendment.number,
    status: amendment.status,
    document: { sha256: amendment.documentSha256, media_type: document.mediaType, size_bytes: document.sizeBytes },
    previous_document_sha256: amendment.previousDocumentSha256,
    parties: answers.map((a) => ({
      party_id: a.partyId,
      role: parties.find((p) => p.id === a.partyId)?.role ?? '',
      decision_url: a.decisionUrl,
      outcome: a.outcome,
      receipt_jws: a.receiptJws,
      decided_at: a.decidedAt?.toISOString() ?? null,
    })),
    deadline: amendment.deadline.toISOString(),
    created_at: amendment.createdAt.toISOString(),
    decided_at: amendment.decidedAt?.toISOString() ?? null,
  };
}

export function agreementView(
  agreement: Agreement,
  parties: AgreementParty[],
  document: { mediaType: string; sizeBytes: number },
  publicBaseUrl: string,
  amendments = 0,
): AgreementResponse {
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
    current_document_sha256: agreement.currentDocumentSha256 ?? agreement.documentSha256,
    amendments,
    deadline: agreement.deadline.toISOString(),
    created_at: agreement.createdAt.toISOString(),
    decided_at: agreement.decidedAt?.toISOString() ?? null,
    receipt_url: `${publicBaseUrl}/api/v1/agreements/${agreement.id}/receipt`,
  };
}

export function agreementReceipt(
  agreement: Agreement,
  parties: AgreementParty[],
  amendments: Array<{ amendment: Amendment; answers: AmendmentParty[] }> = [],
): AgreementReceiptResponse {
  return {
    object: 'agreement_receipt',
    agreement_id: agreement.id,
    document_sha256: agreement.documentSha256,
    status: agreement.status,
    quorum: { type: agreement.quorumType, required: agreement.quorumRequired },
    signatures: parties.flatMap((p) => (p.receiptJws ? [p.receiptJws] : [])),
    ...(amendments.length > 0
      ? {
          amendments: amendments.map(({ amendment, answers }) => ({
            amendment_id: amendment.id,
            number: amendment.number,
            previous_document_sha256: amendment.previousDocumentSha256,
            document_sha256: amendment.documentSha256,
            status: amendment.status,
            signatures: answers.flatMap((a) => (a.receiptJws ? [a.receiptJws] : [])),
          })),
        }
      : {}),
  };
}

import { Allow, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import type { ReceiptStatus } from '../events/project-events';
import type { ReceiptDocument } from '../record/receipt-document';

/**
 * A receipt (svc-cr/2.13) in its canonical flavor: the sections of `ReceiptDocument`. The
 * published JSON Schema (`/schemas/receipt/v2/record.json`) describes every member; the `dpv`
 * flavor is its JSON-LD projection and `signed` wraps it with a JWS.
 */
export class ReceiptDocumentResponse {
  @IsObject() record!: object;
  @IsObject() pii_processing!: object;
  @IsObject({ each: true }) party_identification!: object[];
  @IsOptional() @IsObject() authority?: object;
  @IsObject({ each: true }) event!: object[];
  @IsOptional() @IsObject() extensions?: object;
}

/** What `ReceiptDocument` gives each member of the response class (a drift here fails the type-check). */
export type ReceiptDocumentMatches = ReceiptDocument extends ReceiptDocumentResponse ? true : never;
const receiptDocumentMatches: ReceiptDocumentMatches = true;
void receiptDocumentMatches;

export class DisclosureReceiptResponse {
  @IsString() record_id!: string;
  @IsIn(['disclosure_receipt']) object!: 'disclosure_receipt';
  @IsIn(['notice_record']) record_type!: 'notice_record';
  @IsString() status!: ReceiptStatus;
  @IsIn(['operator_declared']) provenance!: 'operator_declared';
  @IsString() receipt_url!: string;
  @ValidateNested() @Type(() => ReceiptDocumentResponse) receipt!: ReceiptDocument;
}

/** 201 of POST /api/v1/disclosure_receipts: `{disclosure_receipt}`. */
export class DisclosureReceiptEnvelopeResponse {
  @ValidateNested() @Type(() => DisclosureReceiptResponse) disclosure_receipt!: DisclosureReceiptResponse;
}

/** One key of the region's JWKS (Ed25519, RFC 8037). */
export class SigningJwkResponse {
  @IsIn(['OKP']) kty!: 'OKP';
  @IsIn(['Ed25519']) crv!: 'Ed25519';
  @IsString() x!: string;
  @IsString() kid!: string;
  @IsIn(['EdDSA']) alg!: 'EdDSA';
  @IsIn(['sig']) use!: 'sig';
}

/** 200 of GET /.well-known/jwks.json (RFC 7517). */
export class JwksResponse {
  @ValidateNested({ each: true }) @Type(() => SigningJwkResponse) keys!: SigningJwkResponse[];
}

/** The published receipt schema (JSON Schema 2020-12), served byte-verbatim. */
export class ReceiptSchemaResponse {
  @IsString() $schema!: string;
  @IsString() $id!: string;
  @IsString() title!: string;
  @Allow() properties!: unknown;
  @Allow() $defs!: unknown;
}

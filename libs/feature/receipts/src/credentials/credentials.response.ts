import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Nullable } from '@svc/server';

/** One verification method of the DID document (JsonWebKey2020). */
export class VerificationMethodResponse {
  @IsString() @JSONSchema({ examples: ['did:web:us.svc.example#oap-us-v1'] }) id!: string;
  @IsIn(['JsonWebKey2020']) type!: 'JsonWebKey2020';
  @IsString() controller!: string;
  @IsObject() publicKeyJwk!: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA' };
}

/** 200 of GET /.well-known/did.json (did:web, W3C DID Core). */
export class DidDocumentResponse {
  @IsString({ each: true }) '@context'!: string[];
  @IsString() @JSONSchema({ examples: ['did:web:us.svc.example'] }) id!: string;
  @ValidateNested({ each: true }) @Type(() => VerificationMethodResponse) verificationMethod!: VerificationMethodResponse[];
  @IsString({ each: true }) assertionMethod!: string[];
}

/** 200 of GET /.well-known/openid-credential-issuer (OpenID4VCI 1.0 §11.2). */
export class CredentialIssuerMetadataResponse {
  @IsString() @JSONSchema({ examples: ['https://us.svc.example'] }) credential_issuer!: string;
  @IsString({ each: true })
  @JSONSchema({
    description:
      "The pre-authorized code server (`{issuer}/oid4vci`) and the region's OpenID provider (`{issuer}`, authorization code flow with `authorization_details` of type `openid_credential`).",
  })
  authorization_servers!: string[];
  @IsString() credential_endpoint!: string;
  @IsString() nonce_endpoint!: string;
  @Allow() @JSONSchema({ type: 'array', items: { type: 'object' } }) display!: unknown[];
  @Allow()
  @JSONSchema({
    type: 'object',
    description:
      'Per configuration id: format dc+sd-jwt, vct, cryptographic binding (jwk), proof types (jwt: EdDSA, ES256), signing algorithm EdDSA.',
  })
  credential_configurations_supported!: Record<string, unknown>;
}

/** 200 of GET /.well-known/oauth-authorization-server/oid4vci (RFC 8414): the pre-authorized code server. */
export class AuthorizationServerMetadataResponse {
  @IsString() issuer!: string;
  @IsString() token_endpoint!: string;
  @IsString({ each: true }) grant_types_supported!: string[];
  @IsBoolean() 'pre-authorized_grant_anonymous_access_supported'!: boolean;
}

/** The OpenID4VCI credential offer object (§4.1.1). */
export class CredentialOfferObjectResponse {
  @IsString() credential_issuer!: string;
  @IsString({ each: true }) credential_configuration_ids!: string[];
  @IsObject() grants!: Record<string, unknown>;
}

/** 201 of POST /api/v1/credentials/offers. */
export class CredentialOfferResponse {
  @IsIn(['credential_offer']) object!: 'credential_offer';
  @IsString() id!: string;
  @IsIn(['consent_receipt', 'verified_person', 'registered_agent', 'authority_record']) credential_type!: string;
  @ValidateNested() @Type(() => CredentialOfferObjectResponse) credential_offer!: CredentialOfferObjectResponse;
  @IsString()
  @JSONSchema({
    description:
      'The offer by value as an `openid-credential-offer://` link (a QR code or a same-device link for the wallet). Give it only to the person: its code buys the credential once.',
  })
  credential_offer_uri!: string;
  @IsString() expires_at!: string;
}

/** 200 of POST /api/v1/credentials/token (RFC 6749 §5.1, OpenID4VCI §6.2). */
export class CredentialTokenResponse {
  @IsString() access_token!: string;
  @IsIn(['Bearer']) token_type!: 'Bearer';
  @IsInt() expires_in!: number;
  @IsString() c_nonce!: string;
  @IsInt() c_nonce_expires_in!: number;
  @IsObject({ each: true }) authorization_details!: object[];
}

/** 200 of POST /api/v1/credentials/nonce (OpenID4VCI §7.2). */
export class CredentialNonceResponse {
  @IsString() c_nonce!: string;
}

export class IssuedCredentialEntryResponse {
  @IsString()
  @JSONSchema({ description: 'The SD-JWT VC (compact: issuer JWT, then disclosures, each followed by ~).' })
  credential!: string;
}

/** 200 of POST /api/v1/credentials/issuance (OpenID4VCI 1.0 §8.3). */
export class CredentialIssuanceResponse {
  @ValidateNested({ each: true }) @Type(() => IssuedCredentialEntryResponse) credentials!: IssuedCredentialEntryResponse[];
  @IsString() @JSONSchema({ description: 'The id the issuing application sees in /api/v1/credentials.' }) credential_id!: string;
}

export class StatusReferenceResponse {
  @IsInt() idx!: number;
  @IsString() uri!: string;
}

/** A credential the application issued (its claims are the holder's; the issuer keeps none). */
export class CredentialResponse {
  @IsIn(['credential']) object!: 'credential';
  @IsString() @JSONSchema({ examples: ['vcr_us_abcdefghijklmnopqrstuvwx'] }) id!: string;
  @IsIn(['consent_receipt', 'verified_person', 'registered_agent', 'authority_record']) credential_type!: string;
  @IsIn(['dc+sd-jwt']) format!: 'dc+sd-jwt';
  @IsString() vct!: string;
  @IsString() @JSONSchema({ description: 'What the credential is about: the consent record id, or the person id.' }) subject_ref!: string;
  @IsString() @JSONSchema({ description: 'RFC 7638 thumbprint of the holder key (cnf.jwk).' }) holder_jkt!: string;
  @IsIn(['active', 'revoked', 'expired']) status!: 'active' | 'revoked' | 'expired';
  @ValidateNested() @Type(() => StatusReferenceResponse) status_list!: StatusReferenceResponse;
  @IsString() issued_at!: string;
  @IsString() expires_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
  @IsString() @Nullable() revocation_reason!: string | null;
}

export class PresentationCheckResponse {
  @IsIn(['format', 'issuer_trusted', 'signature', 'disclosures', 'validity_period', 'key_binding', 'status']) check!: string;
  @IsIn(['passed', 'failed', 'not_run', 'not_applicable']) result!: string;
  @IsOptional() @IsString() @JSONSchema({ examples: ['revoked'] }) reason?: string;
}

/** 200 of POST /api/v1/presentations. */
export class PresentationVerificationResponse {
  @IsIn(['presentation_verification']) object!: 'presentation_verification';
  @IsBoolean() valid!: boolean;
  @IsIn(['dc+sd-jwt', 'jwt_vc_json', 'unknown']) format!: string;
  @IsString() @Nullable() issuer!: string | null;
  @IsString() @Nullable() @JSONSchema({ description: 'The deployment region that issued it, when one did.' }) issuer_region!: string | null;
  @IsString() @Nullable() issuer_country!: string | null;
  @IsString() @Nullable() vct!: string | null;
  @IsObject()
  @JSONSchema({ description: 'The claims the holder disclosed (empty unless every check before `disclosures` passed).' })
  disclosed_claims!: Record<string, unknown>;
  @ValidateNested({ each: true }) @Type(() => PresentationCheckResponse) checks!: PresentationCheckResponse[];
  @IsString() verified_at!: string;
  @IsOptional()
  @IsString()
  @JSONSchema({
    description:
      'The transfer register entry (`xfr_…`) written before a credential of another region was verified here; absent when nothing crossed.',
    examples: ['xfr_abcdefghijklmnopqrstuvwx'],
  })
  transfer_id?: string;
}

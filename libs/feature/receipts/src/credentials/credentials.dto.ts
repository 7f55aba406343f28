import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DEROGATION_ARTICLES, LAWFUL_BASES } from '@svc/contracts';
import { RoutedBy } from '@svc/ids';
import { CREDENTIAL_TYPES, type CredentialType } from './issuer-identity';
import { PRE_AUTHORIZED_GRANT } from './credential-issuer';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Body of POST /api/v1/credentials/offers. */
@RoutedBy('record_id', 'agent_id', 'authority_id')
export class CreateCredentialOfferBody {
  @IsIn(CREDENTIAL_TYPES)
  @JSONSchema({
    examples: ['consent_receipt'],
    description:
      "`consent_receipt` (API token, `record_id` of a record in force), `verified_person` (the person's own access token), `registered_agent` (API token, `agent_id` of one of its agents), `authority_record` (`authority_id` of an authority in force: the application's API token, or the access token of the person who granted it).",
  })
  credential_type!: CredentialType;

  /** The consent record whose receipt is offered (consent_receipt only). */
  @ValidateIf((body: CreateCredentialOfferBody) => body.credential_type === 'consent_receipt')
  @IsString()
  @Matches(/^crec_[a-z]{2,4}_[a-z2-7]{24}$/, { message: 'record_id must be a consent record id (crec_<region>_…)' })
  @JSONSchema({ examples: ['crec_us_abcdefghijklmnopqrstuvwx'] })
  record_id?: string;

  /** The agent whose registration is offered (registered_agent only). */
  @ValidateIf((body: CreateCredentialOfferBody) => body.credential_type === 'registered_agent')
  @IsString()
  @Matches(/^agent_[a-z]{2,4}_[a-z2-7]{20}$/, { message: 'agent_id must be an agent id (agent_<region>_…)' })
  @JSONSchema({ examples: ['agent_us_abcdefghijklmnopqrst'] })
  agent_id?: string;

  /** The authority whose authorization record is offered (authority_record only). */
  @ValidateIf((body: CreateCredentialOfferBody) => body.credential_type === 'authority_record')
  @IsString()
  @Matches(/^auth_[a-z]{2,4}_[a-z2-7]{20}$/, { message: 'authority_id must be an authority id (auth_<region>_…)' })
  @JSONSchema({ examples: ['auth_us_abcdefghijklmnopqrst'] })
  authority_id?: string;
}

/** Body of POST /api/v1/credentials/token (form-encoded per RFC 6749, or JSON). */
export class CredentialTokenBody {
  @IsIn([PRE_AUTHORIZED_GRANT]) grant_type!: string;

  @IsString()
  @MaxLength(256)
  @JSONSchema({ examples: ['SplxlOBeZQQYbYS6WxSbIA'] })
  'pre-authorized_code'!: string;
}

export class CredentialProofBody {
  @IsIn(['jwt']) proof_type!: 'jwt';
  @IsString() @MaxLength(8192) @Matches(JWT, { message: 'proof.jwt must be a compact JWT' }) jwt!: string;
}

export class CredentialProofsBody {
  @ArrayMinSize(1)
  @ArrayMaxSize(1)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(JWT, { each: true, message: 'proofs.jwt must hold compact JWTs' })
  jwt!: string[];
}

/** Body of POST /api/v1/credentials/issuance (OpenID4VCI 1.0 §8.2; `proof` of earlier drafts accepted). */
export class CredentialRequestBody {
  @IsOptional() @IsIn(CREDENTIAL_TYPES) @JSONSchema({ examples: ['consent_receipt'] }) credential_configuration_id?: CredentialType;
  @IsOptional() @ValidateNested() @Type(() => CredentialProofsBody) proofs?: CredentialProofsBody;
  @IsOptional() @ValidateNested() @Type(() => CredentialProofBody) proof?: CredentialProofBody;
}

/** Body of POST /api/v1/credentials/{credential_id}/revoke. */
export class RevokeCredentialBody {
  @IsOptional()
  @IsIn(['revoked_by_issuer', 'subject_request', 'superseded', 'compromised'])
  @JSONSchema({ examples: ['superseded'] })
  reason?: string;
}

/** Body of POST /api/v1/presentations. */
export class VerifyPresentationBody {
  @IsString()
  @MaxLength(65_536)
  @JSONSchema({
    description: 'An SD-JWT VC presentation (`<issuer-jwt>~<disclosure>~…~<kb-jwt>`) or a W3C VC-JWT.',
    examples: [
      'eyJhbGciOiJFZERTQSJ9.eyJpc3MiOiJkaWQ6d2ViOnVzLnN2Yy5leGFtcGxlIn0.c2ln~WyJzYWx0IiwicHVycG9zZXMiLFtdXQ~eyJ0eXAiOiJrYitqd3QifQ.e30.c2ln',
    ],
  })
  presentation!: string;

  @IsString()
  @MaxLength(512)
  @JSONSchema({
    description: 'The nonce the verifying application gave the wallet; the key binding JWT must carry it.',
    examples: ['n-0S6_WzA2Mj'],
  })
  nonce!: string;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  @JSONSchema({
    description: "The audience the key binding JWT must name; the caller's application id when absent.",
    examples: ['tp_eu_abcdefghijklmnopqrst'],
  })
  audience?: string;

  @IsOptional()
  @IsIn(LAWFUL_BASES)
  @JSONSchema({
    description:
      'Lawful basis of the crossing when the credential was issued in another region of the deployment: the presented personal data arrives here from the issuing country, and is written to the transfer register (`transfer_case` `presentation`) before it is verified. Required then (422 `lawful_basis_required`); ignored for a credential of this region or an issuer outside the deployment.',
    examples: ['standard_contractual_clauses'],
  })
  lawful_basis?: string;

  @IsOptional()
  @IsIn(DEROGATION_ARTICLES)
  @JSONSchema({ description: 'With `lawful_basis` `derogation`: the GDPR Art. 49 derogation relied on.', examples: ['49(1)(a)'] })
  derogation_article?: string;
}

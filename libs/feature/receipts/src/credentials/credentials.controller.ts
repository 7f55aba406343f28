import { Body, Controller, Get, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Auth, CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import {
  ApiDoc,
  ApiResponseOf,
  DEFAULT_PAGE_SIZE,
  FORM_BODY_ROUTE,
  IdParam,
  PageQuery,
  decodeCursor,
  toPage,
  type Page,
} from '@svc/server';
import type { FastifyReply } from 'fastify';
import { receiptsError } from '../receipts.errors';
import { CredentialIssuer, NONCE_TTL_SECONDS, PRE_AUTHORIZED_GRANT, type CreatedOffer } from './credential-issuer';
import { CreateCredentialOfferBody, CredentialRequestBody, CredentialTokenBody, RevokeCredentialBody } from './credentials.dto';
import { CredentialsRepository, type IssuedCredential } from './credentials.repository';
import { OID4VCI_AS_PATH } from './issuer-documents.controller';
import {
  CredentialIssuanceResponse,
  CredentialNonceResponse,
  CredentialOfferResponse,
  CredentialResponse,
  CredentialTokenResponse,
} from './credentials.response';
import { CREDENTIAL_VCT } from './issuer-identity';
import { StatusLists } from './status-lists';

/** The wire shape of an issued credential. */
function credentialView(credential: IssuedCredential, statusUri: string, now: Date): CredentialResponse {
  return {
    object: 'credential',
    id: credential.id,
    credential_type: credential.credentialType,
    format: 'dc+sd-jwt',
    vct: CREDENTIAL_VCT[credential.credentialType],
    subject_ref: credential.subjectRef,
    holder_jkt: credential.holderJkt,
    status: credential.revokedAt ? 'revoked' : credential.expiresAt <= now ? 'expired' : 'active',
    status_list: { idx: credential.statusIndex, uri: statusUri },
    issued_at: credential.issuedAt.toISOString(),
    expires_at: credential.expiresAt.toISOString(),
    revoked_at: credential.revokedAt?.toISOString() ?? null,
    revocation_reason: credential.revocationReason,
  } satisfies CredentialResponse;
}

/**
 * The issuing application's side of the Verify surface's credentials: offers (OpenID4VCI
 * pre-authorized code), and the list, detail and revocation of what it issued.
 */
@Controller('api/v1/credentials')
@Auth('api_token', 'access_token')
export class CredentialsController {
  constructor(
    private readonly issuer: CredentialIssuer,
    private readonly credentials: CredentialsRepository,
    private readonly statusLists: StatusLists,
    private readonly clock: Clock,
  ) {}

  @Post('offers')
  @ApiDoc({
    tag: 'Verify',
    summary:
      'Offer a credential through OpenID4VCI (pre-authorized code): a person\'s consent receipt or authority record, "verified person", or "registered agent"',
    description:
      "`consent_receipt` takes the application's API token and a record in force; `verified_person` takes the person's own access token; `registered_agent` the API token and one of the application's agents; `authority_record` an authority in force (`authority_id`) and the application's API token or the access token of the person who granted it. Hand `credential_offer_uri` to the person only (QR code or link): its code buys the credential once, within 10 minutes.",
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(CredentialOfferResponse, { status: 201 })
  async offer(@CurrentPrincipal() principal: Principal, @Body() body: CreateCredentialOfferBody): Promise<CredentialOfferResponse> {
    let created: CreatedOffer;
    if (body.credential_type === 'consent_receipt') {
      if (principal.kind !== 'api_token')
        throw receiptsError('credential_offer_not_allowed', 'A consent receipt is offered by the application (API token)', {
          field: 'credential_type',
        });
      created = await this.issuer.offerConsentReceipt(principal.applicationId, body.record_id!);
    } else if (body.credential_type === 'verified_person') {
      if (principal.kind !== 'access_token' || !principal.personId)
        throw receiptsError(
          'credential_offer_not_allowed',
          'A verified person credential is offered to the signed-in person (their access token)',
          { field: 'credential_type' },
        );
      created = await this.issuer.offerVerifiedPerson(principal.applicationId, principal.personId);
    } else if (body.credential_type === 'authority_record') {
      if (principal.kind === 'access_token' && !principal.personId)
        throw receiptsError(
          'credential_offer_not_allowed',
          'An authority record is offered by the application or the person who granted it',
          { field: 'credential_type' },
        );
      created = await this.issuer.offerAuthorityRecord(
        principal.applicationId,
        body.authority_id!,
        principal.kind === 'access_token' ? principal.personId : undefined,
      );
    } else {
      if (principal.kind !== 'api_token')
        throw receiptsError(
          'credential_offer_not_allowed',
          "A registered agent credential is offered by the agent's application (API token)",
          { field: 'credential_type' },
        );
      created = await this.issuer.offerRegisteredAgent(principal.applicationId, body.agent_id!);
    }
    const credentialOffer = {
      credential_issuer: this.issuer.issuerId,
      credential_configuration_ids: [created.credentialType],
      // The issuer names two authorization servers, so the grant says which one takes the code (§4.1.1).
      grants: {
        [PRE_AUTHORIZED_GRANT]: {
          'pre-authorized_code': created.preAuthorizedCode,
          authorization_server: `${this.issuer.issuerId}/${OID4VCI_AS_PATH}`,
        },
      },
    };
    return {
      object: 'credential_offer',
      id: created.id,
      credential_type: created.credentialType,
      credential_offer: credentialOffer,
      credential_offer_uri: `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(credentialOffer))}`,
      expires_at: created.expiresAt.toISOString(),
    } satisfies CredentialOfferResponse;
  }

  @Get()
  @ApiDoc({ tag: 'Verify', summary: 'The credentials the application issued (cursor pagination)', errors: [400, 401, 422] })
  @ApiResponseOf(CredentialResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<CredentialResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['issued_at', 'id']) : undefined;
    const rows = await this.credentials.list(
      principal.applicationId,
      limit + 1,
      after ? { issuedAt: after.issued_at, id: after.id } : undefined,
    );
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (row) => credentialView(row, this.statusLists.uri(row.statusListId), now),
      (row) => ({ issued_at: row.issuedAt.toISOString(), id: row.id }),
    );
  }

  @Get(':credential_id')
  @ApiDoc({ tag: 'Verify', summary: 'A credential the application issued', errors: [400, 401, 404] })
  @ApiResponseOf(CredentialResponse)
  async get(
    @CurrentPrincipal() principal: Principal,
    @IdParam('credential_id', 'credential') credentialId: string,
  ): Promise<CredentialResponse> {
    const credential = await this.credentials.find(credentialId);
    if (credential?.applicationId !== principal.applicationId)
      throw receiptsError('credential_not_found', 'Credential not found', { credential_id: credentialId });
    return credentialView(credential, this.statusLists.uri(credential.statusListId), this.clock.now());
  }

  @Post(':credential_id/revoke')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Verify',
    summary: 'Revoke a credential the application issued: its status list entry turns 1 at once (idempotent)',
    errors: [400, 401, 404, 422],
  })
  @ApiResponseOf(CredentialResponse)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @IdParam('credential_id', 'credential') credentialId: string,
    @Body() body: RevokeCredentialBody,
  ): Promise<CredentialResponse> {
    const revoked = await this.issuer.revoke(principal.applicationId, credentialId, body.reason ?? 'revoked_by_issuer');
    return credentialView(revoked, this.statusLists.uri(revoked.statusListId), this.clock.now());
  }
}

/**
 * The wallet's side of OpenID4VCI: the token endpoint of the pre-authorized code grant, the nonce
 * endpoint and the credential endpoint. Public routes: the pre-authorized code, then the access
 * token it bought, or a person's access token of the OpenID provider granted with an
 * `openid_credential` authorization detail, are the only credentials (never an API token of an
 * application).
 */
@Public()
@Controller('api/v1/credentials')
export class CredentialIssuanceController {
  constructor(private readonly issuer: CredentialIssuer) {}

  @Post('token')
  @HttpCode(200)
  @RouteConfig(FORM_BODY_ROUTE)
  @ApiDoc({
    tag: 'Verify',
    summary: 'OpenID4VCI token endpoint, pre-authorized code grant (form-encoded per RFC 6749, or JSON): an access token and a c_nonce',
    errors: [400],
  })
  @ApiResponseOf(CredentialTokenResponse)
  async token(@Body() body: CredentialTokenBody, @Res({ passthrough: true }) reply: FastifyReply): Promise<CredentialTokenResponse> {
    const issued = await this.issuer.token(body['pre-authorized_code']);
    void reply.header('cache-control', 'no-store');
    return {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      c_nonce: issued.cNonce,
      c_nonce_expires_in: NONCE_TTL_SECONDS,
      authorization_details: [{ type: 'openid_credential', credential_configuration_id: issued.configurationId }],
    } satisfies CredentialTokenResponse;
  }

  @Post('nonce')
  @HttpCode(200)
  @ApiDoc({ tag: 'Verify', summary: 'OpenID4VCI nonce endpoint: a fresh single-use c_nonce for the key proof', errors: [] })
  @ApiResponseOf(CredentialNonceResponse)
  async nonce(@Res({ passthrough: true }) reply: FastifyReply): Promise<CredentialNonceResponse> {
    void reply.header('cache-control', 'no-store');
    return { c_nonce: await this.issuer.nonce() };
  }

  @Post('issuance')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Verify',
    summary: 'OpenID4VCI credential endpoint: an SD-JWT VC (dc+sd-jwt) bound to the key of the proof (cnf.jwk)',
    description:
      'Authorization: Bearer <access token>: of the pre-authorized code server\'s token endpoint, or a person\'s access token of the region\'s OpenID provider granted with `authorization_details` `[{"type": "openid_credential", "credential_configuration_id": "verified_person"}]` (or `authority_record` with `authority_id`), which issues for that person only (403 `insufficient_scope` without such a detail). One key proof (`proofs.jwt[0]`, or `proof.jwt`): typ openid4vci-proof+jwt, alg EdDSA or ES256, the public key in `jwk`, aud = the credential issuer, nonce = a c_nonce.',
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(CredentialIssuanceResponse)
  async issue(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: CredentialRequestBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CredentialIssuanceResponse> {
    const token = /^(?:Bearer|DPoP) ([A-Za-z0-9_-]{20,128})$/.exec(authorization ?? '')?.[1];
    if (!token) throw receiptsError('invalid_token', 'Authorization: Bearer <access token> is required', {});
    const proof = body.proofs?.jwt[0] ?? body.proof?.jwt;
    if (!proof) throw receiptsError('invalid_proof', 'A key proof (proofs.jwt) is required', { field: 'proofs' });
    const issued = await this.issuer.issue(token, body.credential_configuration_id, proof);
    void reply.header('cache-control', 'no-store');
    return { credentials: [{ credential: issued.credential }], credential_id: issued.credentialId } satisfies CredentialIssuanceResponse;
  }
}

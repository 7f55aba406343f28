import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { receiptsError } from '../receipts.errors';
import { PRE_AUTHORIZED_GRANT, PROOF_ALGORITHMS } from './credential-issuer';
import { AuthorizationServerMetadataResponse, CredentialIssuerMetadataResponse, DidDocumentResponse } from './credentials.response';
import { CREDENTIAL_TYPES, CREDENTIAL_VCT, SD_JWT_VC_FORMAT, didWebOf, verificationMethodId } from './issuer-identity';
import { STATUS_LIST_TTL_SECONDS, StatusLists } from './status-lists';

/** Path segment of the pre-authorized code server's issuer identifier (RFC 8414 §3.1 path insertion). */
export const OID4VCI_AS_PATH = 'oid4vci';

const STATUS_LIST_ID = /^[a-z]{2,4}-[1-9][0-9]{0,8}$/;

const DISPLAY: Record<string, string> = {
  consent_receipt: 'Consent receipt',
  verified_person: 'Verified person',
  registered_agent: 'Registered agent',
  authority_record: 'Authority record',
};

/**
 * The issuer's public documents: its did:web DID document (every region key, active and retired:
 * the key store never deletes a retired key, so anything it signed stays verifiable), the
 * OpenID4VCI issuer metadata, the metadata of its pre-authorized code server, and the status lists.
 */
@Public()
@Controller()
export class IssuerDocumentsController {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly statusLists: StatusLists,
    private readonly config: PlatformConfig,
  ) {}

  @Get('.well-known/did.json')
  @Header('content-type', 'application/did+json; charset=utf-8')
  @Header('cache-control', 'public, max-age=60')
  @ApiDoc({
    tag: 'Verify',
    summary: "The region's did:web DID document: every signing key, active and retired, as an assertion method",
    errors: [],
  })
  @ApiResponseOf(DidDocumentResponse)
  async did(): Promise<DidDocumentResponse> {
    const did = didWebOf(this.config.publicBaseUrl);
    const { keys } = await this.keys.jwks();
    const methods = keys.map((key) => ({
      id: verificationMethodId(did, key.kid),
      type: 'JsonWebKey2020' as const,
      controller: did,
      publicKeyJwk: { kty: key.kty, crv: key.crv, x: key.x, kid: key.kid, alg: key.alg },
    }));
    return {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      id: did,
      verificationMethod: methods,
      assertionMethod: methods.map((method) => method.id),
    } satisfies DidDocumentResponse;
  }

  @Get('.well-known/openid-credential-issuer')
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({ tag: 'Verify', summary: 'OpenID4VCI credential issuer metadata: SD-JWT VC (dc+sd-jwt) configurations, endpoints', errors: [] })
  @ApiResponseOf(CredentialIssuerMetadataResponse)
  issuerMetadata(): CredentialIssuerMetadataResponse {
    const base = this.config.publicBaseUrl;
    return {
      credential_issuer: base,
      // The pre-authorized code server, then the region's OpenID provider (authorization code flow).
      authorization_servers: [`${base}/${OID4VCI_AS_PATH}`, base],
      credential_endpoint: `${base}/api/v1/credentials/issuance`,
      nonce_endpoint: `${base}/api/v1/credentials/nonce`,
      display: [{ name: 'svc', locale: 'en' }],
      credential_configurations_supported: Object.fromEntries(
        CREDENTIAL_TYPES.map((type) => [
          type,
          {
            format: SD_JWT_VC_FORMAT,
            vct: CREDENTIAL_VCT[type],
            cryptographic_binding_methods_supported: ['jwk'],
            credential_signing_alg_values_supported: ['EdDSA'],
            proof_types_supported: { jwt: { proof_signing_alg_values_supported: [...PROOF_ALGORITHMS] } },
            display: [{ name: DISPLAY[type], locale: 'en' }],
          },
        ]),
      ),
    } satisfies CredentialIssuerMetadataResponse;
  }

  @Get(`.well-known/oauth-authorization-server/${OID4VCI_AS_PATH}`)
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({ tag: 'Verify', summary: "RFC 8414 metadata of the issuer's pre-authorized code server (token endpoint)", errors: [] })
  @ApiResponseOf(AuthorizationServerMetadataResponse)
  authorizationServer(): AuthorizationServerMetadataResponse {
    const base = this.config.publicBaseUrl;
    return {
      issuer: `${base}/${OID4VCI_AS_PATH}`,
      token_endpoint: `${base}/api/v1/credentials/token`,
      grant_types_supported: [PRE_AUTHORIZED_GRANT],
      'pre-authorized_grant_anonymous_access_supported': true,
    } satisfies AuthorizationServerMetadataResponse;
  }

  @Get('.well-known/credential-status/:id')
  @ApiDoc({
    tag: 'Verify',
    summary: 'An IETF Token Status List (statuslist+jwt, 1 bit per credential: 0 valid, 1 revoked), signed by the region key',
    response: 'The status list token (compact JWS, typ statuslist+jwt)',
    errors: [404],
    produces: 'application/statuslist+jwt',
  })
  async statusList(@Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const token = STATUS_LIST_ID.test(id) ? await this.statusLists.token(id) : undefined;
    if (!token) throw receiptsError('status_list_not_found', 'Status list not found', { id });
    void reply.header('content-type', 'application/statuslist+jwt').header('cache-control', `public, max-age=${STATUS_LIST_TTL_SECONDS}`);
    return token;
  }
}

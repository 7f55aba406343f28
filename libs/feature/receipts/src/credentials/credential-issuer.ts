import { createHash, randomBytes, sign } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { AccessTokenResolver } from '@svc/auth';
import { Clock, PlatformConfig, isRegion, regionCountries } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import { SigningKeyStore } from '@svc/key-store';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { EntityManager } from 'typeorm';
import { receiptsError } from '../receipts.errors';
import { RenderReceipt } from '../use-cases/render-receipt.use-case';
import { CredentialsRepository, type CredentialOffer, type IssuedCredential } from './credentials.repository';
import { CREDENTIAL_VCT, didWebOf, verificationMethodId, type CredentialType } from './issuer-identity';
import { StatusLists } from './status-lists';

/** OpenID4VCI pre-authorized code grant type (OpenID4VCI 1.0 §4.1.1). */
export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
/** Typ of the holder's key proof (OpenID4VCI 1.0 Appendix F.1). */
export const PROOF_TYP = 'openid4vci-proof+jwt';
/** How long an offer's pre-authorized code can be redeemed, s. */
export const OFFER_TTL_SECONDS = 600;
/** How long the access token of the credential endpoint lives, s. */
export const ACCESS_TOKEN_TTL_SECONDS = 300;
/** How long a c_nonce can be used, s. */
export const NONCE_TTL_SECONDS = 300;
/** Validity of an issued credential, days. */
export const CREDENTIAL_VALIDITY_DAYS = 365;
/** Holder key algorithms accepted for `cnf` (the proof's `alg`). */
export const PROOF_ALGORITHMS = ['EdDSA', 'ES256'] as const;

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** What an offer creates, for the response. */
export interface CreatedOffer {
  id: string;
  credentialType: CredentialType;
  preAuthorizedCode: string;
  expiresAt: Date;
}

/**
 * The region's OpenID4VCI credential issuer: offers with a pre-authorized code (created by the
 * application that holds the record, delivered by it to the person), the token and nonce
 * endpoints, and the credential endpoint that issues an SD-JWT VC bound to the holder's key
 * (`cnf.jwk` from the key proof), signed with the region key and identified by its did:web.
 */
@Injectable()
export class CredentialIssuer {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly statusLists: StatusLists,
    private readonly render: RenderReceipt,
    private readonly keys: SigningKeyStore,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    private readonly accessTokens: AccessTokenResolver,
  ) {}

  /** The credential issuer identifier (OpenID4VCI §11.2.1): the region's public base URL. */
  get issuerId(): string {
    return this.config.publicBaseUrl;
  }

  /** The did:web of the region, the `iss` of every credential it signs. */
  get did(): string {
    return didWebOf(this.config.publicBaseUrl);
  }

  /** An offer of the application's consent receipt for `recordId` (a record it holds, still in force). */
  async offerConsentReceipt(applicationId: string, recordId: string): Promise<CreatedOffer> {
    const rendered = await this.render.execute(applicationId, recordId, ['consent_record'], 'canonical');
    if (rendered.status !== 'active' && rendered.status !== 'partially_withdrawn') {
      throw receiptsError('credential_subject_inactive', 'The consent record is not in force', {
        record_id: recordId,
        status: rendered.status,
      });
    }
    const document = rendered.document;
    const controller = document.party_identification.find((party) => party.party_role === 'controller');
    const given = document.event.find((event) => event.event_state === 'consent given');
    const claims: Record<string, unknown> = {
      record_id: recordId,
      controller: { id: controller?.party_id ?? applicationId, name: controller?.party_name ?? '' },
      purposes: document.pii_processing.purposes.map((purpose) => ({ purpose_id: purpose.purpose_id, label: purpose.label })),
      jurisdiction: document.pii_processing.jurisdiction,
      language: document.pii_processing.language,
      ...(given ? { consent_given_at: given.event_time } : {}),
      ...(document.pii_processing.privacy_notice ? { privacy_notice_hash: document.pii_processing.privacy_notice.hash } : {}),
    };
    return this.offer(applicationId, 'consent_receipt', recordId, claims);
  }

  /** An offer of a "verified person" credential to the person signed in with the access token. */
  async offerVerifiedPerson(applicationId: string, personId: string): Promise<CreatedOffer> {
    return this.offer(applicationId, 'verified_person', personId, this.verifiedPersonClaims(personId));
  }

  private verifiedPersonClaims(personId: string): Record<string, unknown> {
    return {
      person_id: personId,
      home_country: isRegion(this.config.REGION) ? regionCountries(this.config)[this.config.REGION] : undefined,
      verified_by: this.issuerId,
    };
  }

  /**
   * An offer of a "registered agent" credential for one of the application's agents (known from
   * `oap.agent_registered`), to be held by the agent's own key.
   */
  async offerRegisteredAgent(applicationId: string, agentId: string): Promise<CreatedOffer> {
    const agent = await this.credentials.registeredAgent(applicationId, agentId);
    if (!agent)
      throw receiptsError(
        'credential_subject_not_found',
        'No agent of the application with this id (registrations arrive shortly after the agent is created)',
        { agent_id: agentId },
      );
    return this.offer(applicationId, 'registered_agent', agentId, {
      agent_id: agentId,
      application_id: applicationId,
      ...(agent.agentType ? { agent_type: agent.agentType } : {}),
      registered_at: agent.registeredAt.toISOString(),
    });
  }

  /**
   * An offer of an authority's authorization record (an authority of the application, learnt from
   * `authority.created`, in force): by the application (`personId` undefined), or by the person who
   * granted it (`personId` from their access token; another person's authority is not found).
   */
  async offerAuthorityRecord(applicationId: string, authorityId: string, personId?: string): Promise<CreatedOffer> {
    return this.offer(
      applicationId,
      'authority_record',
      authorityId,
      await this.authorityRecordClaims(applicationId, authorityId, personId),
    );
  }

  private async authorityRecordClaims(applicationId: string, authorityId: string, personId?: string): Promise<Record<string, unknown>> {
    const authority = await this.credentials.authority(applicationId, authorityId);
    if (!authority || (personId !== undefined && authority.principalSha256 !== sha256(personId))) {
      throw receiptsError(
        'credential_subject_not_found',
        'No authority of the application with this id (authorities arrive shortly after they are granted)',
        { authority_id: authorityId },
      );
    }
    const rendered = await this.render.execute(applicationId, authorityId, ['authorization_record'], 'canonical');
    if (authority.revokedAt || rendered.status !== 'active') {
      throw receiptsError('credential_subject_inactive', 'The authority is not in force', {
        authority_id: authorityId,
        status: authority.revokedAt ? 'revoked' : rendered.status,
      });
    }
    const document = rendered.document;
    const controller = document.party_identification.find((party) => party.party_role === 'controller');
    const granted = document.event.find((event) => event.event_state === 'authority granted');
    const bounds = Object.fromEntries(Object.entries(document.authority ?? {}).filter(([name]) => name.endsWith('_bounds')));
    const claims: Record<string, unknown> = {
      authority_id: authorityId,
      agent_id: authority.agentId,
      controller: { id: controller?.party_id ?? applicationId, name: controller?.party_name ?? '' },
      bounds,
      purposes: document.pii_processing.purposes.map((purpose) => ({ purpose_id: purpose.purpose_id, label: purpose.label })),
      ...(document.authority?.valid_from ? { valid_from: document.authority.valid_from } : {}),
      ...(document.authority?.valid_until ? { valid_until: document.authority.valid_until } : {}),
      ...(granted ? { granted_at: granted.event_time } : {}),
    };
    return claims;
  }

  private async offer(
    applicationId: string,
    credentialType: CredentialType,
    subjectRef: string,
    claims: Record<string, unknown>,
  ): Promise<CreatedOffer> {
    const now = this.clock.now();
    const code = randomBytes(32).toString('base64url');
    const offer: CredentialOffer = {
      id: randomBytes(16).toString('hex'),
      applicationId,
      credentialType,
      subjectRef,
      claims,
      codeExpiresAt: new Date(now.getTime() + OFFER_TTL_SECONDS * 1000),
      tokenSha256: null,
      tokenExpiresAt: null,
      issuedCredentialId: null,
    };
    await this.credentials.insertOffer(offer, sha256(code), now);
    return { id: offer.id, credentialType, preAuthorizedCode: code, expiresAt: offer.codeExpiresAt };
  }

  /** Token endpoint, pre-authorized code grant: a single-use code buys one access token and a c_nonce. */
  async token(
    preAuthorizedCode: string,
  ): Promise<{ accessToken: string; expiresIn: number; cNonce: string; configurationId: CredentialType }> {
    const now = this.clock.now();
    const accessToken = randomBytes(32).toString('base64url');
    const offer = await this.credentials.redeemCode(
      sha256(preAuthorizedCode),
      sha256(accessToken),
      new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
      now,
    );
    if (!offer)
      throw receiptsError('invalid_grant', 'The pre-authorized code is unknown, expired or already used', { field: 'pre-authorized_code' });
    return { accessToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS, cNonce: await this.nonce(), configurationId: offer.credentialType };
  }

  /** Nonce endpoint: a fresh single-use c_nonce. */
  async nonce(): Promise<string> {
    const now = this.clock.now();
    const nonce = randomBytes(24).toString('base64url');
    await this.credentials.insertNonce(sha256(nonce), new Date(now.getTime() + NONCE_TTL_SECONDS * 1000), now);
    return nonce;
  }

  /**
   * Credential endpoint: checks the access token, the holder's key proof (typ, alg, `jwk` header,
   * signature, `aud` = issuer identifier, fresh `iat`, single-use `nonce`), then issues the SD-JWT
   * VC with `cnf.jwk` = the proof's key and a status list entry, in one transaction.
   */
  async issue(
    accessToken: string,
    configurationId: string | undefined,
    proofJwt: string,
  ): Promise<{ credential: string; credentialId: string }> {
    const now = this.clock.now();
    const holder = await this.holderKey(proofJwt, now);
    return this.credentials.transaction(async (manager) => {
      const offer = await this.credentials.offerByToken(manager, sha256(accessToken), now);
      if (offer?.issuedCredentialId) throw receiptsError('invalid_token', 'The access token was already used', {});
      if (offer && configurationId !== undefined && configurationId !== offer.credentialType) {
        throw receiptsError('unknown_credential_configuration', 'The access token was not issued for this credential configuration', {
          field: 'credential_configuration_id',
        });
      }
      // Not a token of the pre-authorized code server: a person's token of the OpenID provider.
      const source = offer ?? (await this.personGrant(accessToken, configurationId));
      if (!(await this.credentials.consumeNonce(manager, sha256(holder.nonce), now)))
        throw receiptsError('invalid_nonce', 'The proof nonce is unknown, expired or used', { field: 'proof' });
      const { listId, index } = await this.statusLists.allocate(manager);
      const credential: IssuedCredential = {
        id: newRegionalId('credential', this.config.REGION),
        applicationId: source.applicationId,
        credentialType: source.credentialType,
        subjectRef: source.subjectRef,
        holderJkt: holder.jkt,
        statusListId: listId,
        statusIndex: index,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + CREDENTIAL_VALIDITY_DAYS * 86_400_000),
        revokedAt: null,
        revocationReason: null,
      };
      await this.credentials.insertCredential(manager, credential);
      if (offer) await this.credentials.markOfferIssued(manager, offer.id, credential.id);
      return { credential: await this.sign(credential, source.claims, holder.jwk), credentialId: credential.id };
    });
  }

  /**
   * What a person's access token of the region's OpenID provider (authorization code flow) buys:
   * verified the way every route that accepts a person's token verifies it (the provider's own
   * token store: unknown, expired, revoked or sender-bound tokens are refused), then one of its
   * `openid_credential` authorization details, for the token's person only. The token may be used
   * again within its lifetime (each request issues one credential for a fresh key proof).
   */
  private async personGrant(
    accessToken: string,
    configurationId: string | undefined,
  ): Promise<{ applicationId: string; credentialType: CredentialType; subjectRef: string; claims: Record<string, unknown> }> {
    const person = await this.accessTokens.resolve(accessToken);
    if (person?.kind !== 'access_token' || !person.personId)
      throw receiptsError('invalid_token', 'The access token is unknown or expired', {});
    const details = (person.authorizationDetails ?? []).filter((detail) => detail.type === 'openid_credential');
    if (details.length === 0)
      throw receiptsError(
        'insufficient_scope',
        'The access token grants no credential (authorization_details of type openid_credential)',
        {},
      );
    const chosen =
      configurationId === undefined
        ? details.length === 1
          ? details[0]
          : undefined
        : details.find((detail) => detail.credential_configuration_id === configurationId);
    if (!chosen) {
      throw receiptsError(
        'unknown_credential_configuration',
        configurationId === undefined
          ? 'Name the credential_configuration_id: the access token grants several'
          : 'The access token was not issued for this credential configuration',
        { field: 'credential_configuration_id' },
      );
    }
    const base = { applicationId: person.applicationId };
    if (chosen.credential_configuration_id === 'verified_person') {
      return {
        ...base,
        credentialType: 'verified_person',
        subjectRef: person.personId,
        claims: this.verifiedPersonClaims(person.personId),
      };
    }
    if (chosen.credential_configuration_id === 'authority_record' && typeof chosen.authority_id === 'string') {
      const claims = await this.authorityRecordClaims(person.applicationId, chosen.authority_id, person.personId);
      return { ...base, credentialType: 'authority_record', subjectRef: chosen.authority_id, claims };
    }
    throw receiptsError(
      'unknown_credential_configuration',
      'This credential configuration is not issued through the authorization code flow',
      { field: 'credential_configuration_id' },
    );
  }

  /** Revokes a credential of the application and flips its status bit, in one transaction. */
  async revoke(applicationId: string, credentialId: string, reason: string): Promise<IssuedCredential> {
    return this.credentials.transaction(async (manager) => {
      const credential = await this.credentials.find(credentialId, manager, true);
      if (credential?.applicationId !== applicationId)
        throw receiptsError('credential_not_found', 'Credential not found', { credential_id: credentialId });
      if (credential.revokedAt) return credential;
      const [revoked] = await this.credentials.revoke(manager, { id: credentialId }, reason, this.clock.now());
      await this.statusLists.invalidate(manager, credential.statusListId, credential.statusIndex);
      return revoked ?? credential;
    });
  }

  /**
   * Revokes every consent-receipt credential of a record, in the transaction of the withdrawal's
   * intake (the `consent.purpose_revoked` / `consent.record_revoked` events): a credential stating
   * purposes the person no longer consents to must stop verifying.
   */
  async revokeForRecord(manager: EntityManager, applicationId: string, recordId: string): Promise<number> {
    const revoked = await this.credentials.revoke(
      manager,
      { applicationId, credentialType: 'consent_receipt', subjectRef: recordId },
      'consent_withdrawn',
      this.clock.now(),
    );
    for (const credential of revoked) await this.statusLists.invalidate(manager, credential.statusListId, credential.statusIndex);
    return revoked.length;
  }

  /**
   * Revokes every authority-record credential of an authority, in the transaction of the
   * `authority.revoked` intake: a credential stating an authority that no longer holds must stop
   * verifying.
   */
  async revokeForAuthority(manager: EntityManager, applicationId: string, authorityId: string): Promise<number> {
    const at = this.clock.now();
    await this.credentials.markAuthorityRevoked(manager, authorityId, at);
    const revoked = await this.credentials.revoke(
      manager,
      { applicationId, credentialType: 'authority_record', subjectRef: authorityId },
      'authority_revoked',
      at,
    );
    for (const credential of revoked) await this.statusLists.invalidate(manager, credential.statusListId, credential.statusIndex);
    return revoked.length;
  }

  private async holderKey(proofJwt: string, now: Date): Promise<{ jwk: JWK; jkt: string; nonce: string }> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(proofJwt);
    } catch {
      throw receiptsError('invalid_proof', 'The proof is not a JWT', { field: 'proof' });
    }
    if (header.typ !== PROOF_TYP) throw receiptsError('invalid_proof', `The proof's typ must be ${PROOF_TYP}`, { field: 'proof' });
    if (!(PROOF_ALGORITHMS as readonly string[]).includes(header.alg ?? ''))
      throw receiptsError('invalid_proof', `The proof's alg must be one of ${PROOF_ALGORITHMS.join(', ')}`, { field: 'proof' });
    const jwk = header.jwk;
    if (!jwk || 'd' in jwk)
      throw receiptsError('invalid_proof', 'The proof must carry the public holder key in its jwk header', { field: 'proof' });
    try {
      const key = await importJWK(jwk, header.alg);
      const { payload } = await jwtVerify(proofJwt, key, {
        audience: this.issuerId,
        typ: PROOF_TYP,
        currentDate: now,
        maxTokenAge: '5m',
        clockTolerance: 60,
      });
      if (typeof payload.nonce !== 'string') throw new Error('nonce missing');
      const publicJwk = Object.fromEntries(
        Object.entries(jwk).filter(([name]) => ['kty', 'crv', 'x', 'y', 'e', 'n'].includes(name)),
      ) as unknown as JWK;
      return { jwk: publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256'), nonce: payload.nonce };
    } catch {
      throw receiptsError('invalid_proof', 'The proof does not verify (signature, aud, iat or nonce)', { field: 'proof' });
    }
  }

  /** Signs the SD-JWT VC: every claim selectively disclosable, `iss`, `vct`, `cnf`, `status`, times in the clear. */
  private async sign(credential: IssuedCredential, claims: Record<string, unknown>, holderJwk: JWK): Promise<string> {
    const key = await this.keys.activeKey();
    // Loaded with the first credential (with its schemas, about a hundred modules): a process that
    // issues none never loads it.
    const { SDJwtVcInstance } = await import('@sd-jwt/sd-jwt-vc');
    const instance = new SDJwtVcInstance({
      signer: (data: string) => Promise.resolve(sign(null, Buffer.from(data, 'utf8'), key.privateKey).toString('base64url')),
      signAlg: 'EdDSA',
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
    });
    const payload = {
      iss: this.did,
      iat: Math.floor(credential.issuedAt.getTime() / 1000),
      exp: Math.floor(credential.expiresAt.getTime() / 1000),
      vct: CREDENTIAL_VCT[credential.credentialType],
      cnf: { jwk: holderJwk },
      status: { status_list: { idx: credential.statusIndex, uri: this.statusLists.uri(credential.statusListId) } },
      ...claims,
    };
    return instance.issue(payload, { _sd: Object.keys(claims) } as never, {
      header: { kid: verificationMethodId(this.did, key.kid), typ: 'dc+sd-jwt' },
    });
  }
}

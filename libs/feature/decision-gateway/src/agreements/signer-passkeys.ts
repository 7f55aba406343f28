import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import type { AuthenticationResponseJSON, AuthenticatorTransport } from '@simplewebauthn/server';
import type { EntityManager } from 'typeorm';
import { PeopleRepository, type Passkey } from '../people/people.repository';
import { WEBAUTHN_INTEGRITY } from '../people/webauthn-asset';
import { webAuthnLibrary, type WebAuthnLibrary } from '../people/webauthn-library';
import type { PasskeyAssertion } from './agreement';
import { agreementError } from './agreements.errors';

/** What a signature's WebAuthn challenge is derived from: the signature it authorises. */
export interface SignatureChallengeInput {
  agreement_id: string;
  party_id: string;
  document_sha256: string;
  signer: string;
  /** A vote on an amendment (`amd_…`). */
  amendment_id?: string;
}

/**
 * The challenge a signer's passkey signs for one signature: base64url of the SHA-256 of the RFC
 * 8785 canonical JSON of `{agreement_id, party_id, document_sha256, signer, outcome: "signed"}`
 * (and `amendment_id` for a vote on an amendment).
 * It is derived, not random, so an offline verifier recomputes it from the receipt's own claims;
 * it names exactly one party of one agreement over one document, which can be signed once.
 */
export function signatureChallenge(input: SignatureChallengeInput): string {
  const canonical = canonicalJson({
    agreement_id: input.agreement_id,
    party_id: input.party_id,
    document_sha256: input.document_sha256,
    signer: input.signer,
    outcome: 'signed',
    ...(input.amendment_id ? { amendment_id: input.amendment_id } : {}),
  });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** What the signing page needs to ask for the assertion. */
export interface PasskeySigningOptions {
  /** PublicKeyCredentialRequestOptionsJSON for @simplewebauthn/browser's startAuthentication. */
  options: {
    challenge: string;
    rpId: string;
    allowCredentials: Array<{ id: string; type: 'public-key'; transports?: string[] }>;
    userVerification: 'preferred';
    timeout: number;
  };
  /** Subresource Integrity of /people/assets/webauthn.js. */
  integrity: string;
}

const COSE_KTY = 1;
const COSE_ALG = 3;
const COSE_CRV = -1;
const COSE_X = -2;
const COSE_Y = -3;
const COSE_N = -1;
const COSE_E = -2;

/** A COSE credential public key as a JWK (EC2 P-256/384/521, OKP Ed25519, RSA), for verifiers without CBOR. */
export function coseToJwk(
  cose: Uint8Array<ArrayBuffer>,
  decodeCredentialPublicKey: WebAuthnLibrary['decodeCredentialPublicKey'],
): Record<string, string> {
  const key = decodeCredentialPublicKey(cose) as unknown as Map<number, number | Uint8Array>;
  const bytes = (label: number): string => {
    const value = key.get(label);
    if (!(value instanceof Uint8Array)) throw new Error(`COSE key without ${label}`);
    return Buffer.from(value).toString('base64url');
  };
  const kty = key.get(COSE_KTY);
  const alg = key.get(COSE_ALG);
  if (kty === 2) {
    const crv = ({ 1: 'P-256', 2: 'P-384', 3: 'P-521' } as Record<number, string>)[Number(key.get(COSE_CRV))];
    if (!crv) throw new Error('unsupported EC2 curve');
    return { kty: 'EC', crv, x: bytes(COSE_X), y: bytes(COSE_Y), ...(alg === -7 ? { alg: 'ES256' } : {}) };
  }
  if (kty === 1 && key.get(COSE_CRV) === 6) return { kty: 'OKP', crv: 'Ed25519', x: bytes(COSE_X), alg: 'EdDSA' };
  if (kty === 3) return { kty: 'RSA', n: bytes(COSE_N), e: bytes(COSE_E), ...(alg === -257 ? { alg: 'RS256' } : {}) };
  throw new Error('unsupported COSE key type');
}

/**
 * The signer's own passkey in a signature: where the signer registered a passkey, signing an
 * agreement needs a WebAuthn assertion over {@link signatureChallenge}, verified here against the
 * person's registered credential (its signature counter moves on), and bound into the signature
 * receipt with the credential's public key so it can be checked offline.
 */
@Injectable()
export class SignerPasskeys {
  private readonly origin: string;
  private readonly rpId: string;

  constructor(
    private readonly people: PeopleRepository,
    private readonly clock: Clock,
    platform: PlatformConfig,
  ) {
    const url = new URL(platform.PUBLIC_BASE_URL);
    this.origin = url.origin;
    this.rpId = url.hostname;
  }

  /** The page's options when the signer has a passkey here; null otherwise. */
  async options(signer: string, challenge: SignatureChallengeInput): Promise<PasskeySigningOptions | null> {
    const passkeys = await this.people.listPasskeys(signer);
    if (passkeys.length === 0) return null;
    return {
      options: {
        challenge: signatureChallenge(challenge),
        rpId: this.rpId,
        allowCredentials: passkeys.map((p) => ({
          id: p.credentialId,
          type: 'public-key',
          ...(p.transports.length > 0 ? { transports: p.transports } : {}),
        })),
        userVerification: 'preferred',
        timeout: 120_000,
      },
      integrity: WEBAUTHN_INTEGRITY,
    };
  }

  /**
   * Verifies the signer's assertion for this signature and returns what the receipt binds; null
   * when the signer has no passkey and gave none (they sign on their sign-in alone). A signer with
   * a passkey must give one (401 `passkey_assertion_required`); an assertion that does not verify,
   * or by another person's credential, is refused (401 `passkey_assertion_invalid`).
   */
  async verify(
    manager: EntityManager,
    signer: string,
    challengeInput: SignatureChallengeInput,
    response: Record<string, unknown> | undefined,
  ): Promise<PasskeyAssertion | null> {
    const challenge = signatureChallenge(challengeInput);
    if (response === undefined) {
      if ((await this.people.listPasskeys(signer)).length === 0) return null;
      throw agreementError(
        'passkey_assertion_required',
        'The signer has a passkey: signing needs their passkey assertion over this signature',
        { field: 'passkey_assertion', challenge },
      );
    }
    const invalid = (): never => {
      throw agreementError('passkey_assertion_invalid', 'The passkey assertion does not verify for this signer and signature', {
        field: 'passkey_assertion',
      });
    };
    const id = typeof response['id'] === 'string' ? response['id'] : '';
    const webauthn = await webAuthnLibrary();
    const passkey: Passkey | undefined = id ? await this.people.findPasskey(id, manager) : undefined;
    if (!passkey || passkey.personId !== signer) return invalid();
    let verification;
    try {
      verification = await webauthn.verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransport[],
        },
        requireUserVerification: false,
      });
    } catch {
      return invalid();
    }
    if (!verification.verified) return invalid();
    const inner = (response['response'] ?? {}) as Record<string, unknown>;
    await this.people.usePasskey(manager, passkey.credentialId, verification.authenticationInfo.newCounter, this.clock.now());
    return {
      credential_id: passkey.credentialId,
      public_key: coseToJwk(new Uint8Array(passkey.publicKey), webauthn.decodeCredentialPublicKey),
      challenge,
      authenticator_data: String(inner['authenticatorData']),
      client_data_json: String(inner['clientDataJSON']),
      signature: String(inner['signature']),
      user_verified: verification.authenticationInfo.userVerified,
    };
  }
}

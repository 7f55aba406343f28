import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { CredentialFormatError } from './credential-format-error';

/** Base contexts of the W3C VC Data Model 1.1 and 2.0: the first `@context` entry must be one. */
export const VC_BASE_CONTEXTS = ['https://www.w3.org/2018/credentials/v1', 'https://www.w3.org/ns/credentials/v2'];
/** `typ`/`cty` values (with or without `application/`) that mark a VC-JOSE payload (plain or SD-JWT). */
const VC_JOSE_TYPES = ['vc+jwt', 'vc+ld+json+jwt', 'vc+ld+jwt', 'vc+sd-jwt', 'vc+ld+json+sd-jwt'];
const VC_JOSE_CONTENT_TYPES = ['vc', 'vc+ld+json'];
/** Agent identity claims read from `credentialSubject`. */
const SUBJECT_CLAIMS = ['agent_type', 'agent_model', 'agent_provider', 'agent_version', 'agent_instance_id', 'delegator_sub'] as const;

/** Which of the two JWT securings of a W3C VC a token uses. */
export type VcSecuring = 'jwt_vc' | 'vc_jose';

const mediaType = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.toLowerCase().replace(/^application\//, '') : undefined;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * How a compact JWT carries a W3C Verifiable Credential, if it does: VC-JOSE (`typ` vc+jwt,
 * media type `application/vc+jwt`, or `cty` vc; the payload is the credential itself) or the
 * VC Data Model 1.1 JWT encoding (JWT-VC: the credential in the `vc` claim).
 */
export function vcSecuringOf(header: ProtectedHeaderParameters, payload: JWTPayload): VcSecuring | undefined {
  if (VC_JOSE_TYPES.includes(mediaType(header.typ) ?? '') || VC_JOSE_CONTENT_TYPES.includes(mediaType(header.cty) ?? '')) return 'vc_jose';
  if (payload.vc !== undefined) return 'jwt_vc';
  if (payload['@context'] !== undefined && payload.credentialSubject !== undefined) return 'vc_jose';
  return undefined;
}

function seconds(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw new CredentialFormatError(`The credential ${name} is not a date-time`, { format: 'vc', claim: name });
  return Math.floor(ms / 1000);
}

function numeric(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new CredentialFormatError(`The credential ${name} must be a NumericDate`, { format: 'vc', claim: name });
  return value;
}

/** One value from a JWT claim and its credential counterpart; both present must agree. */
function agreeing(jwtName: string, jwtValue: unknown, vcName: string, vcValue: unknown): unknown {
  if (jwtValue !== undefined && vcValue !== undefined && jwtValue !== vcValue) {
    throw new CredentialFormatError(`The credential ${jwtName} and ${vcName} disagree`, {
      format: 'vc',
      disagreeing_claims: [jwtName, vcName],
    });
  }
  return jwtValue ?? vcValue;
}

const present = (values: Array<number | undefined>): number[] => values.filter((v): v is number => v !== undefined);

/**
 * Maps a JWT-secured W3C VC onto the ID-token claims the verifier checks: `iss` ← `iss` or
 * `issuer`(.id), `sub` ← `sub` or `credentialSubject.id`, `jti` ← `jti` or `id`, `aud` ← `aud`;
 * the validity window is the narrowest of what the token states: `iat` ← the latest of
 * iat/nbf/validFrom/issuanceDate, `exp` ← the earliest of exp/validUntil/expirationDate. Agent
 * identity claims come from `credentialSubject`. A JWT claim and its credential property that
 * both appear must agree. Missing mapped claims are left absent for the required-claims check.
 */
export function claimsOfVerifiableCredential(securing: VcSecuring, payload: JWTPayload): JWTPayload {
  const credential = securing === 'jwt_vc' ? payload.vc : payload;
  if (!isObject(credential)) throw new CredentialFormatError('The vc claim must be a credential object', { format: 'vc' });
  const contexts = Array.isArray(credential['@context']) ? credential['@context'] : [credential['@context']];
  if (!VC_BASE_CONTEXTS.includes(contexts[0] as string))
    throw new CredentialFormatError('The credential @context must start with a W3C VC base context', { format: 'vc', field: '@context' });
  const types = Array.isArray(credential.type) ? credential.type : [credential.type];
  if (!types.includes('VerifiableCredential'))
    throw new CredentialFormatError('The credential type must include VerifiableCredential', { format: 'vc', field: 'type' });
  const subjects = Array.isArray(credential.credentialSubject) ? credential.credentialSubject : [credential.credentialSubject];
  const subject = subjects[0];
  if (subjects.length !== 1 || !isObject(subject))
    throw new CredentialFormatError('The credential must have exactly one credentialSubject object (the agent)', {
      format: 'vc',
      field: 'credentialSubject',
    });
  const issuer = isObject(credential.issuer) ? credential.issuer.id : credential.issuer;

  const notBefore = present([
    numeric(payload.iat, 'iat'),
    numeric(payload.nbf, 'nbf'),
    seconds(credential.validFrom, 'validFrom'),
    seconds(credential.issuanceDate, 'issuanceDate'),
  ]);
  const notAfter = present([
    numeric(payload.exp, 'exp'),
    seconds(credential.validUntil, 'validUntil'),
    seconds(credential.expirationDate, 'expirationDate'),
  ]);

  const claims: JWTPayload = {};
  for (const name of SUBJECT_CLAIMS) if (subject[name] !== undefined) claims[name] = subject[name];
  const mapped: Record<string, unknown> = {
    iss: agreeing('iss', payload.iss, 'issuer', issuer),
    sub: agreeing('sub', payload.sub, 'credentialSubject.id', subject.id),
    jti: agreeing('jti', payload.jti, 'id', securing === 'jwt_vc' ? credential.id : payload.id),
    aud: payload.aud,
    iat: notBefore.length > 0 ? Math.max(...notBefore) : undefined,
    exp: notAfter.length > 0 ? Math.min(...notAfter) : undefined,
  };
  for (const [name, value] of Object.entries(mapped)) if (value !== undefined) claims[name] = value;
  return claims;
}

import { decodeJwt, decodeProtectedHeader, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { CredentialFormatError } from './credential-format-error';
import { decodeSdJwt, isSdJwt, splitSdJwt, type DecodedSdJwt } from './sd-jwt';
import { claimsOfVerifiableCredential, vcSecuringOf } from './vc-jwt';

/** The accepted `agent_credential` formats (spec, OAP grant request). */
export type CredentialFormat = 'id_token' | 'sd_jwt' | 'vc';

/** A credential read but not yet verified: the JWS to verify and the claims to check. */
export interface DecodedCredential {
  format: CredentialFormat;
  header: ProtectedHeaderParameters;
  /** The compact JWS the trusted issuer signed (an SD-JWT's issuer-signed JWT). */
  signedJwt: string;
  /** ID-token claims: as signed, rebuilt from SD-JWT disclosures, or mapped from a VC. */
  claims: JWTPayload;
  /** The SD-JWT as decoded, for key binding. */
  sdJwt?: DecodedSdJwt;
}

function decodeCompact(jwt: string, format: CredentialFormat): { header: ProtectedHeaderParameters; payload: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(jwt), payload: decodeJwt(jwt) };
  } catch {
    throw new CredentialFormatError('agent_credential is not a parseable compact JWT', { format });
  }
}

/**
 * Reads `agent_credential` as an OIDC-A ID token (compact JWT), an SD-JWT
 * (`<issuer-jwt>~<disclosure>~…~[<kb-jwt>]`, disclosures verified against the signed digests),
 * or a W3C VC secured as a JWT (VC-JOSE `vc+jwt`, or JWT-VC with a `vc` claim; also a VC-JOSE
 * SD-JWT). No signature is checked here; every failure is a {@link CredentialFormatError}.
 */
export async function decodeAgentCredential(token: string): Promise<DecodedCredential> {
  if (isSdJwt(token)) {
    const parts = splitSdJwt(token);
    const { header, payload } = decodeCompact(parts.issuerJwt, 'sd_jwt');
    const { sdJwt, claims: rebuilt } = await decodeSdJwt(parts, payload);
    const disclosed = rebuilt as JWTPayload;
    const securing = vcSecuringOf(header, disclosed);
    const claims = securing
      ? { ...claimsOfVerifiableCredential(securing, disclosed), ...(disclosed.cnf ? { cnf: disclosed.cnf } : {}) }
      : disclosed;
    return { format: 'sd_jwt', header, signedJwt: parts.issuerJwt, claims, sdJwt };
  }
  const { header, payload } = decodeCompact(token, 'id_token');
  const securing = vcSecuringOf(header, payload);
  if (securing) return { format: 'vc', header, signedJwt: token, claims: claimsOfVerifiableCredential(securing, payload) };
  return { format: 'id_token', header, signedJwt: token, claims: payload };
}

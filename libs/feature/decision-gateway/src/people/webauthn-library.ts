import type * as WebAuthnServer from '@simplewebauthn/server';
import type * as WebAuthnHelpers from '@simplewebauthn/server/helpers';

/** The functions of @simplewebauthn/server the passkey ceremonies and passkey signing use. */
export interface WebAuthnLibrary {
  readonly generateRegistrationOptions: typeof WebAuthnServer.generateRegistrationOptions;
  readonly verifyRegistrationResponse: typeof WebAuthnServer.verifyRegistrationResponse;
  readonly generateAuthenticationOptions: typeof WebAuthnServer.generateAuthenticationOptions;
  readonly verifyAuthenticationResponse: typeof WebAuthnServer.verifyAuthenticationResponse;
  readonly decodeCredentialPublicKey: typeof WebAuthnHelpers.decodeCredentialPublicKey;
}

/**
 * @simplewebauthn/server, loaded on the first passkey ceremony: with its CBOR, ASN.1 and X.509
 * parsers it is a few hundred modules, which a process that never sees a passkey does not load at
 * start. Later calls find the modules loaded.
 */
export async function webAuthnLibrary(): Promise<WebAuthnLibrary> {
  const [server, helpers] = await Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]);
  return {
    generateRegistrationOptions: server.generateRegistrationOptions,
    verifyRegistrationResponse: server.verifyRegistrationResponse,
    generateAuthenticationOptions: server.generateAuthenticationOptions,
    verifyAuthenticationResponse: server.verifyAuthenticationResponse,
    decodeCredentialPublicKey: helpers.decodeCredentialPublicKey,
  };
}

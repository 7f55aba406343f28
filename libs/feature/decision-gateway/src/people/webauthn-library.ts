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

let loading: Promise<WebAuthnLibrary> | undefined;

/**
 * @simplewebauthn/server, loaded on the first passkey ceremony: with its CBOR, ASN.1 and X.509
 * parsers it is a few hundred modules, which a process that never sees a passkey does not load at
 * start. A failed load is tried again.
 */
export function webAuthnLibrary(): Promise<WebAuthnLibrary> {
  loading ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(
    ([server, helpers]) => ({
      generateRegistrationOptions: server.generateRegistrationOptions,
      verifyRegistrationResponse: server.verifyRegistrationResponse,
      generateAuthenticationOptions: server.generateAuthenticationOptions,
      verifyAuthenticationResponse: server.verifyAuthenticationResponse,
      decodeCredentialPublicKey: helpers.decodeCredentialPublicKey,
    }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

import type { DecisionSession } from './decision';

/**
 * Port for the third way a session's person is bound: the person signs in on the hosted page.
 * No adapter exists yet; until one is registered under {@link HOSTED_SIGN_IN}, `sign_in` on the
 * page only moves the session and never names anyone. An adapter verifies the sign-in and returns
 * the application's identifier of the person, which the session then stores with binding
 * `hosted_sign_in`.
 */
export interface HostedSignIn {
  /** The person a verified sign-in proves, or null when the proof does not hold. */
  signedInPrincipal(session: DecisionSession, proof: Readonly<Record<string, unknown>>): Promise<string | null>;
}

/** Injection token of the {@link HostedSignIn} adapter (optional). */
export const HOSTED_SIGN_IN = Symbol('HOSTED_SIGN_IN');

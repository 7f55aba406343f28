import type { DecisionSession } from './decision';

/**
 * Port for the third way a session's person is bound: the person signs in on the hosted page.
 * The people feature registers the adapter under {@link HOSTED_SIGN_IN} (the browser's sign-in
 * cookie; `proof.request` is the page's request). It returns the person the sign-in proves, which
 * an unbound session then stores with binding `hosted_sign_in`; for a session the server bound it
 * returns that binding's principal once the signed-in person is the one it is linked to. It throws
 * (401 `sign_in_required`, 403 `principal_mismatch`) when the flow requires a sign-in that is
 * missing or does not match. Without an adapter `sign_in` only moves the session.
 */
export interface HostedSignIn {
  /** The person a verified sign-in proves, or null when the proof does not hold. */
  signedInPrincipal(session: DecisionSession, proof: Readonly<Record<string, unknown>>): Promise<string | null>;
}

/** Injection token of the {@link HostedSignIn} adapter (optional). */
export const HOSTED_SIGN_IN = Symbol('HOSTED_SIGN_IN');

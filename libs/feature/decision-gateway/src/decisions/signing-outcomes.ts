import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DecisionSession } from './decision';

/**
 * What a signing decision belongs to, when something other than the bare session owns its outcome
 * (an agreement's party). Registered by the agreements feature; without one, a signing session
 * publishes its own `signature.*` event.
 */
export interface SigningOutcomeHandler {
  /**
   * Called in the session's transaction, with the session row locked, once a `signature_request`
   * session resolved (signed, declined, countered, expired). Returns true when it owns the session
   * (it then publishes the outcome's event itself, with its receipt); false to let the session
   * publish its own. Throwing refuses the move: the transaction, vote included, rolls back.
   * `proof` is what {@link SigningOutcomeHandler.proveSigner} returned for this answer.
   */
  onResolved(manager: EntityManager, session: DecisionSession, now: Date, proof?: SignerProof): Promise<boolean>;
  /** True when the session is a party's signing session whose signer must sign in to answer. */
  requiresSignIn(session: DecisionSession): boolean;
  /**
   * Called in the session's transaction before a signed-in signer's answer is recorded: checks
   * the signer's own proof for a `sign` (their passkey assertion, required when they have a
   * passkey) and returns what the receipt binds. Throwing refuses the answer.
   */
  proveSigner(
    manager: EntityManager,
    session: DecisionSession,
    action: 'yes' | 'no' | 'counter',
    passkeyAssertion: Record<string, unknown> | undefined,
  ): Promise<SignerProof>;
  /** What the signing page needs to ask the signer for a passkey assertion; null when it asks none. */
  passkeyOptions(session: DecisionSession): Promise<Record<string, unknown> | null>;
}

/** How a signer proved it was them for one answer: `passkey` with the bound assertion, or `session`. */
export interface SignerProof {
  method: 'passkey' | 'session';
  /** The bound WebAuthn assertion (method `passkey`). */
  assertion?: Record<string, unknown>;
}

/** The registry of the one {@link SigningOutcomeHandler} of the process's decision-gateway. */
@Injectable()
export class SigningOutcomes {
  private handler?: SigningOutcomeHandler;

  register(handler: SigningOutcomeHandler): void {
    this.handler = handler;
  }

  /** See {@link SigningOutcomeHandler.onResolved}; false without a handler or for another kind. */
  async onResolved(manager: EntityManager, session: DecisionSession, now: Date, proof?: SignerProof): Promise<boolean> {
    if (session.kind !== 'signature_request' || !this.handler) return false;
    return this.handler.onResolved(manager, session, now, proof);
  }

  requiresSignIn(session: DecisionSession): boolean {
    return session.kind === 'signature_request' && (this.handler?.requiresSignIn(session) ?? false);
  }

  /** See {@link SigningOutcomeHandler.proveSigner}; only for sessions that require a sign-in. */
  async proveSigner(
    manager: EntityManager,
    session: DecisionSession,
    action: 'yes' | 'no' | 'counter',
    passkeyAssertion: Record<string, unknown> | undefined,
  ): Promise<SignerProof> {
    if (!this.handler || !this.requiresSignIn(session)) return { method: 'session' };
    return this.handler.proveSigner(manager, session, action, passkeyAssertion);
  }

  /** See {@link SigningOutcomeHandler.passkeyOptions}; null for an open session that is not a signer's, or a closed one. */
  async passkeyOptions(session: DecisionSession): Promise<Record<string, unknown> | null> {
    if (!this.handler || !this.requiresSignIn(session) || session.completedAt !== null) return null;
    return this.handler.passkeyOptions(session);
  }
}

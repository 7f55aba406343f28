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
   */
  onResolved(manager: EntityManager, session: DecisionSession, now: Date): Promise<boolean>;
  /** True when the session is a party's signing session whose signer must sign in to answer. */
  requiresSignIn(session: DecisionSession): boolean;
}

/** The registry of the one {@link SigningOutcomeHandler} of the process's decision-gateway. */
@Injectable()
export class SigningOutcomes {
  private handler?: SigningOutcomeHandler;

  register(handler: SigningOutcomeHandler): void {
    this.handler = handler;
  }

  /** See {@link SigningOutcomeHandler.onResolved}; false without a handler or for another kind. */
  async onResolved(manager: EntityManager, session: DecisionSession, now: Date): Promise<boolean> {
    if (session.kind !== 'signature_request' || !this.handler) return false;
    return this.handler.onResolved(manager, session, now);
  }

  requiresSignIn(session: DecisionSession): boolean {
    return session.kind === 'signature_request' && (this.handler?.requiresSignIn(session) ?? false);
  }
}

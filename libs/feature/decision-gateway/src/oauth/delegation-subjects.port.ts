/**
 * A delegation grant (`dlg_…`) presented as the subject token of a token exchange. The delegation
 * feature binds {@link DELEGATION_SUBJECTS}; until it does, such a subject is refused
 * (`invalid_grant`).
 */
export interface DelegationSubject {
  /** The principal the agent will act for (the authority's person). */
  personId: string;
  /** Scopes the grant lets the delegate pass on. */
  scopes: string[];
  expiresAt: Date;
  /** The delegate, as the innermost actor of the exchanged token's `act` chain. */
  delegateId: string;
}

export interface DelegationSubjects {
  /** The grant as the application's client may use it: null when unknown, not the application's, expired or revoked. */
  resolve(grantId: string, applicationId: string): Promise<DelegationSubject | null>;
}

export const DELEGATION_SUBJECTS = Symbol('DELEGATION_SUBJECTS');

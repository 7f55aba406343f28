import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { DecisionSession } from '../decisions/decision';
import type { HostedSignIn } from '../decisions/principal-binding';
import { peopleError } from './people.errors';
import { PeopleRepository } from './people.repository';
import { PersonSessionsService } from './person-sessions.service';
import { SettledFlowVersions } from '../decisions/settled-flow-versions';

/** The flow requirement that makes the decision page require a signed-in person. */
export const SIGN_IN_REQUIREMENT = 'identity_verification';

/**
 * Sign-in on the decision page, on the browser's sign-in cookie. A flow requires it when its
 * version lists the `identity_verification` requirement. An unbound session is bound to the
 * signed-in person (`usr_…`). A session the application's server bound to one of its subject
 * references that is linked to a person is for that person only: they must be the one signed in
 * (the page names them and asks them to confirm it is them); anyone else is refused.
 */
@Injectable()
export class PeopleHostedSignIn implements HostedSignIn {
  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly people: PeopleRepository,
    /** Flow versions past their draft are asked once: their requirements never change. */
    private readonly flowVersions: SettledFlowVersions,
  ) {}

  async signedInPrincipal(session: DecisionSession, proof: Readonly<Record<string, unknown>>): Promise<string | null> {
    const request = proof['request'] as IncomingMessage | undefined;
    const person = request ? await this.sessions.fromRequest(request) : null;
    const signInUrl = this.sessions.signInPath(`/decisions/${session.sessionToken ?? ''}`);
    if (session.principalId !== null && session.principalBinding !== null) {
      const linked = await this.boundPerson(session);
      if (linked) {
        if (!person)
          throw peopleError('sign_in_required', 'This decision is for a person with an account: they sign in to confirm it is them', {
            sign_in_url: signInUrl,
          });
        if (person.personId !== linked)
          throw peopleError('principal_mismatch', 'The person signed in is not the person this decision is for');
        return session.principalId;
      }
      if (!person && (await this.requiresSignIn(session)))
        throw peopleError('sign_in_required', 'This flow requires the person to sign in', { sign_in_url: signInUrl });
      return session.principalId;
    }
    if (person) return person.personId;
    if (await this.requiresSignIn(session))
      throw peopleError('sign_in_required', 'This flow requires the person to sign in', { sign_in_url: signInUrl });
    return null;
  }

  /** The person id the session's server-bound subject reference is linked to, if any. */
  async boundPerson(session: Pick<DecisionSession, 'applicationId' | 'principalId'>): Promise<string | null> {
    if (!session.principalId) return null;
    if (/^usr_[a-z]+_[a-z2-7]{20}$/.test(session.principalId)) return (await this.people.findPerson(session.principalId))?.id ?? null;
    const linked = await this.people.linkedPerson(session.applicationId, 'external_id', session.principalId);
    return linked?.id ?? null;
  }

  async requiresSignIn(session: DecisionSession): Promise<boolean> {
    if (session.kind !== 'consent' || !session.flowId) return false;
    const reply = await this.flowVersions.terms(session.applicationId, session.flowId, session.flowVersion ?? 0);
    return reply.found && reply.requirements.includes(SIGN_IN_REQUIREMENT);
  }
}

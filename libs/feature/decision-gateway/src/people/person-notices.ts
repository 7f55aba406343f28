import { Injectable } from '@nestjs/common';
import type { DecisionSession } from '../decisions/decision';
import { PeopleHostedSignIn } from './hosted-sign-in.adapter';
import { peopleLocale, peopleText } from './people-i18n';
import { PeopleRepository } from './people.repository';

/**
 * What a decision page says of its person: for a session the application's server bound to a
 * subject reference linked to a person, that person's name and a request to sign in to confirm it
 * is them. Nothing for unbound sessions or references no person is linked to.
 */
@Injectable()
export class PersonNotices {
  constructor(
    private readonly signIn: PeopleHostedSignIn,
    private readonly people: PeopleRepository,
  ) {}

  async forSession(session: DecisionSession, locale: string): Promise<string | null> {
    if (session.principalBinding === null || session.principalId === null || session.completedAt !== null) return null;
    const personId = await this.signIn.boundPerson(session);
    const person = personId ? await this.people.findPerson(personId) : undefined;
    return person ? peopleText(peopleLocale(locale), 'confirm_person', { name: person.displayName }) : null;
  }
}

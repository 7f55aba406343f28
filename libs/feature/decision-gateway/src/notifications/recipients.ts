import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { parseId } from '@svc/ids';
import type { Person } from '../people/person';
import { PeopleRepository } from '../people/people.repository';

/** Where a notification goes and in which language. */
export interface Recipient {
  /** The person's `usr_` id when the address is a signed-up person's; null otherwise. */
  personId: string | null;
  email: string;
  /** The person's locale (BCP 47) when the platform knows them; null otherwise. */
  locale: string | null;
}

/**
 * Finds the email address of whom a notification is for, only from what the platform knows: a
 * `usr_` id homed in this region, a subject reference an application linked to a person, or an
 * email the organisation supplied with the record. Nobody known → no notification.
 */
@Injectable()
export class NotificationRecipients {
  constructor(
    private readonly people: PeopleRepository,
    private readonly config: PlatformConfig,
  ) {}

  /** An approver: a person's `usr_` id of this region, or a reference the application linked to a person. */
  async approver(applicationId: string, approverId: string): Promise<Recipient | null> {
    let person: Person | undefined;
    if (approverId.startsWith('usr_')) {
      const parsed = parseId(approverId);
      if (!parsed || parsed.region !== this.config.REGION) return null;
      person = await this.people.findPerson(approverId);
    } else {
      person = await this.people.linkedPerson(applicationId, 'external_id', approverId);
    }
    return person ? { personId: person.id, email: person.email, locale: person.locale } : null;
  }

  /** The subject of a consent record: the email supplied with it, else the person its external id is linked to. */
  async subject(applicationId: string, subject: { email: string; externalId: string }): Promise<Recipient | null> {
    const email = subject.email.trim().toLowerCase();
    if (email) {
      const person = await this.people.findPersonByEmail(email);
      return { personId: person?.id ?? null, email, locale: person?.locale ?? null };
    }
    if (!subject.externalId) return null;
    const linked = await this.people.linkedPerson(applicationId, 'external_id', subject.externalId);
    return linked ? { personId: linked.id, email: linked.email, locale: linked.locale } : null;
  }
}

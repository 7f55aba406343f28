import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { newRegionalId, parseId } from '@svc/ids';
import { ApplicationsRepository } from '../../applications/applications.repository';
import { ownedApplication } from '../../applications/use-cases/owned-application';
import { peopleError } from '../people.errors';
import { PeopleRepository, type PersonLink } from '../people.repository';
import { normalizeEmail } from '../person';

/**
 * Links between an application's own subject references (`external_id`, email) and a person.
 * The application names the person by the `usr_` id it learnt from the person's sign-in; the
 * person sees every link on their account page and may remove it. Creating the same link again
 * answers the existing one (idempotent retry); the same reference linked to another person is a
 * conflict.
 */
@Injectable()
export class PersonLinks {
  constructor(
    private readonly people: PeopleRepository,
    private readonly applications: ApplicationsRepository,
    private readonly clock: Clock,
    private readonly platform: PlatformConfig,
  ) {}

  async create(
    principal: Principal,
    applicationId: string,
    personId: string,
    subject: { external_id?: string; email?: string },
  ): Promise<{ link: PersonLink; created: boolean }> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const reference = subjectReference(subject);
    const region = parseId(personId)?.region;
    const person = region === app.region ? await this.people.findPerson(personId) : undefined;
    if (!person) throw peopleError('person_not_found', 'No such person', { field: 'person_id' });
    const { link, created } = await this.people.transaction((manager) =>
      this.people.insertLink(manager, {
        id: newRegionalId('person_link', this.platform.REGION),
        applicationId: app.id,
        personId: person.id,
        subjectKind: reference.kind,
        subjectValue: reference.value,
        createdAt: this.clock.now(),
      }),
    );
    if (link.personId !== person.id)
      throw peopleError('person_link_conflict', 'This subject reference is linked to another person', {
        field: `subject.${reference.kind}`,
      });
    return { link, created };
  }

  async remove(principal: Principal, applicationId: string, linkId: string): Promise<PersonLink> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const removed = await this.people.transaction((manager) => this.people.deleteLink(manager, linkId, { applicationId: app.id }));
    if (!removed) throw peopleError('person_link_not_found', 'No such person link', { person_link_id: linkId.slice(0, 100) });
    return removed;
  }

  async removeOwn(personId: string, linkId: string): Promise<void> {
    const removed = await this.people.transaction((manager) => this.people.deleteLink(manager, linkId, { personId }));
    if (!removed) throw peopleError('person_link_not_found', 'No such person link', { person_link_id: linkId.slice(0, 100) });
  }
}

function subjectReference(subject: { external_id?: string; email?: string }): { kind: 'external_id' | 'email'; value: string } {
  const hasExternal = subject.external_id !== undefined;
  const hasEmail = subject.email !== undefined;
  if (hasExternal === hasEmail)
    throw new DomainError('unprocessable', 'validation_failed', 'subject must name exactly one of external_id or email', {
      field: 'subject',
    });
  return hasExternal ? { kind: 'external_id', value: subject.external_id! } : { kind: 'email', value: normalizeEmail(subject.email!) };
}

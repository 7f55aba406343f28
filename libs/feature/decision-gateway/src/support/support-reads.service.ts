import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig, isRegion, regionCountries } from '@svc/config';
import { parseId } from '@svc/ids';
import { PeopleRepository } from '../people/people.repository';
import type { Person } from '../people/person';
import { supportError } from './support.errors';
import type { SupportPersonResponse, SupportReadResponse, SupportTransferResponse } from './support-reads.response';

/** What a support read releases of a person: the categories the register names. */
const SUPPORT_CATEGORIES = ['identifiers', 'contact_data'];
const TRANSFER_ID = /^xfr_[a-z2-7]{24}$/;

export interface SupportRead {
  personId: string;
  purpose: string;
  lawfulBasis?: string;
  derogationArticle?: string;
}

/** The profile a support read releases. */
export function supportPersonView(person: Person): SupportPersonResponse {
  return {
    id: person.id,
    display_name: person.displayName,
    email: person.email,
    email_verified: person.emailVerifiedAt !== null,
    locale: person.locale,
    time_zone: person.timeZone,
    home_country: person.homeCountry,
    created_at: person.createdAt.toISOString(),
  };
}

/**
 * A support operator (an account credential with the admin role or above, acting on one of the
 * account's applications) reads a person's profile. A person of the operator's region is read
 * here, nothing crosses. A person homed in another region: (1) that region is asked only whether
 * the person exists (the opaque id crosses); (2) the crossing — identifiers and contact data, from
 * the person's country to the operator's, recipient the operator's opaque id, with the request's
 * lawful basis — is written to this region's transfer register (an inbound crossing, case
 * `support_operator`, with its audit entry); (3) only then is the person's region asked for the
 * profile, naming the register entry. Without a lawful basis, or when the register refuses or
 * cannot be written, the read is refused and no personal data leaves the person's region.
 */
@Injectable()
export class SupportReads {
  constructor(
    private readonly people: PeopleRepository,
    private readonly rpc: RpcClient,
    private readonly platform: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  async read(principal: Principal, command: SupportRead): Promise<SupportReadResponse> {
    const operator = operatorOf(principal);
    const region = parseId(command.personId)?.region;
    if (!isRegion(region)) throw supportError('person_not_found', 'No such person in this deployment', { field: 'person_id' });
    const base = { object: 'support_read' as const, application_id: principal.applicationId, operator };
    if (region === this.platform.REGION) {
      if (command.lawfulBasis || command.derogationArticle) {
        throw supportError(
          'lawful_basis_not_applicable',
          "The person is homed in the operator's region: nothing crosses, so no lawful basis is named",
          { field: command.lawfulBasis ? 'lawful_basis' : 'derogation_article' },
        );
      }
      const person = await this.people.findPerson(command.personId);
      if (!person) throw supportError('person_not_found', 'No such person in this region', { field: 'person_id' });
      return { ...base, person: supportPersonView(person), transfer: null, read_at: this.clock.now().toISOString() };
    }
    if (!command.lawfulBasis) {
      throw supportError(
        'lawful_basis_required',
        `The person is homed in region ${region}: their data crosses to the operator, and a crossing needs a lawful basis`,
        { field: 'lawful_basis' },
      );
    }
    if (!(await this.rpc.inRegion(region).call('gateway.check_person_homed', { personId: command.personId })).found) {
      throw supportError('person_not_found', "No such person in the person's home region", { field: 'person_id' });
    }
    const countries = regionCountries(this.platform);
    const fromCountry = countries[region];
    const toCountry = countries[this.platform.REGION];
    const recorded = await this.rpc.call('residency.record_transfer', {
      applicationId: principal.applicationId,
      dataCategories: SUPPORT_CATEGORIES,
      fromCountry,
      toCountry,
      recipient: operator,
      purpose: command.purpose,
      lawfulBasis: command.lawfulBasis,
      derogationArticle: command.derogationArticle ?? '',
      transferCase: 'support_operator',
      reference: `support-read:${randomUUID()}`,
      recordIds: [],
    });
    const transfer: SupportTransferResponse = {
      id: recorded.transferId,
      audit_entry_id: recorded.auditEntryId,
      from_country: fromCountry,
      to_country: toCountry,
      lawful_basis: command.lawfulBasis,
      derogation_article: command.derogationArticle ?? null,
      adequacy_verdict: recorded.adequacyVerdict,
      adequacy_table_version: recorded.adequacyTableVersion,
    };
    const reply = await this.rpc.inRegion(region).call('gateway.read_person_for_support', {
      personId: command.personId,
      transferId: recorded.transferId,
      toRegion: this.platform.REGION,
    });
    if (!reply.found) throw supportError('person_not_found', "No such person in the person's home region", { field: 'person_id' });
    return { ...base, person: JSON.parse(reply.personJson) as SupportPersonResponse, transfer, read_at: this.clock.now().toISOString() };
  }

  /**
   * Answers another region's `gateway.read_person_for_support`: the profile of a person homed here,
   * only to a region that names its transfer register entry of the crossing.
   */
  async releaseTo(personId: string, transferId: string, toRegion: string): Promise<Person | undefined> {
    if (!TRANSFER_ID.test(transferId) || !isRegion(toRegion) || toRegion === this.platform.REGION) {
      throw supportError(
        'transfer_not_recorded',
        "A person's data leaves their region only against the receiving region's transfer register entry",
        { field: 'transfer_id' },
      );
    }
    if (parseId(personId)?.region !== this.platform.REGION) return undefined;
    return this.people.findPerson(personId);
  }
}

/** The operator's opaque id: the account token's id, or the member's person id. */
function operatorOf(principal: Principal): string {
  const operator =
    !principal.account || principal.delegation
      ? undefined
      : principal.kind === 'account_token'
        ? principal.credentialId
        : principal.personId;
  if (!operator) {
    throw supportError(
      'support_operator_required',
      "A support read is made with an account token or a member access token of the application's account",
      { field: 'Authorization' },
    );
  }
  return operator;
}

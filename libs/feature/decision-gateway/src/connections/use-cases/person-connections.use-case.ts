import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { ApplicationsRepository } from '../../applications/applications.repository';
import { DelegationGrantsService } from '../../delegations/delegation-grants.service';
import { PeopleRepository } from '../../people/people.repository';
import { ConnectionsRepository, type PersonDelegation, type PersonOAuthGrant } from '../connections.repository';

/** Everything that connects one application to a person. */
export interface Connection {
  applicationId: string;
  applicationName: string;
  consents: Array<{ recordId: string; flowId: string }>;
  authorities: Array<{ authorityId: string; agentId: string; status: string }>;
  delegations: PersonDelegation[];
  oauthGrants: PersonOAuthGrant[];
}

/** What one disconnection ended. */
export interface Disconnection {
  withdrawnConsents: string[];
  revokedAuthorities: string[];
  revokedDelegations: string[];
  revokedOAuthGrants: string[];
}

/**
 * A signed-in person's connections: every application holding a consent of theirs (through the
 * applications' links to them), an authority they granted, a delegation grant they are party to or
 * an OAuth grant they gave; and the one place that ends them, per application or all at once. Each
 * end is the same as its individual revocation (same use case or same events), so webhooks, Shared
 * Signals, receipts and svc-verify follow as they do for one.
 */
@Injectable()
export class PersonConnections {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly people: PeopleRepository,
    private readonly applications: ApplicationsRepository,
    private readonly delegations: DelegationGrantsService,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
  ) {}

  async list(personId: string, applicationId?: string): Promise<Connection[]> {
    const subjects = await this.subjectsOf(personId);
    const [consents, authorities, delegations, grants] = await Promise.all([
      subjects.length
        ? this.rpc.call('consent_records.person_consents', { subjects, applicationId: applicationId ?? '' })
        : Promise.resolve({ consents: [] }),
      this.rpc.call('oap.person_authorities', { personId, applicationId: applicationId ?? '' }),
      this.connections.delegations(personId, applicationId),
      this.connections.oauthGrants(personId, applicationId),
    ]);
    const byApplication = new Map<string, Connection>();
    const entry = (id: string): Connection => {
      let found = byApplication.get(id);
      if (!found) {
        found = { applicationId: id, applicationName: '', consents: [], authorities: [], delegations: [], oauthGrants: [] };
        byApplication.set(id, found);
      }
      return found;
    };
    for (const c of consents.consents) entry(c.applicationId).consents.push({ recordId: c.recordId, flowId: c.flowId });
    for (const a of authorities.authorities)
      entry(a.applicationId).authorities.push({ authorityId: a.authorityId, agentId: a.agentId, status: a.status });
    for (const d of delegations) entry(d.applicationId).delegations.push(d);
    for (const g of grants) entry(g.applicationId).oauthGrants.push(g);
    const list = [...byApplication.values()].sort((a, b) => (a.applicationId < b.applicationId ? -1 : 1));
    for (const connection of list)
      connection.applicationName = (await this.applications.findApplication(connection.applicationId))?.name ?? '';
    return list;
  }

  /** Ends every connection of one application to the person, or of every application when none is named. */
  async disconnect(principal: Principal, personId: string, applicationId?: string): Promise<Disconnection> {
    const subjects = await this.subjectsOf(personId);
    const consents = subjects.length
      ? await this.rpc.call('consent_records.withdraw_person_consents', { subjects, applicationId: applicationId ?? '' })
      : { consents: [] };
    const authorities = await this.rpc.call('oap.revoke_person_authorities', { personId, applicationId: applicationId ?? '' });
    const revokedDelegations: string[] = [];
    for (const delegation of await this.connections.delegations(personId, applicationId)) {
      try {
        await this.delegations.revoke(principal, delegation.id);
        revokedDelegations.push(delegation.id);
      } catch (error) {
        if (!isDomainError(error) || error.kind === 'internal' || error.kind === 'unavailable') throw error;
      }
    }
    const grants = await this.connections.oauthGrants(personId, applicationId);
    await this.connections.revokeOAuthGrants(personId, grants, this.clock.now());
    return {
      withdrawnConsents: consents.consents.map((c) => c.recordId),
      revokedAuthorities: authorities.authorities.map((a) => a.authorityId),
      revokedDelegations,
      revokedOAuthGrants: grants.map((g) => g.grantId),
    };
  }

  /** The person's linked subject references, as digests (the references never travel). */
  private async subjectsOf(personId: string): Promise<Array<{ applicationId: string; kind: string; valueSha256: string }>> {
    const links = await this.people.listLinksOfPerson(personId);
    return links.map((l) => ({
      applicationId: l.applicationId,
      kind: l.subjectKind,
      valueSha256: sha256Hex(l.subjectKind === 'email' ? l.subjectValue.trim().toLowerCase() : l.subjectValue),
    }));
  }
}

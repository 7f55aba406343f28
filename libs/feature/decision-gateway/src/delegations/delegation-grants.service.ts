import { Inject, Injectable, Optional } from '@nestjs/common';
import { authError, type DelegationContext, type DelegationTarget, type Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig, isRegion, regionCountries, type Region } from '@svc/config';
import { DomainError } from '@svc/errors';
import { newRegionalId, parseId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { PERSON_DIRECTORY, type PersonDirectory } from '../people/person-sessions.port';
import { GATEWAY_OUTBOX } from '../tokens';
import { effectiveStatus, type DelegationAction, type DelegationGrant, type DelegationType } from './delegation-grant';
import { delegationError } from './delegations.errors';
import { DelegationsRepository } from './delegations.repository';

/** What token exchange (and any other reader) learns of an active grant. */
export interface ActiveDelegation {
  principalPersonId: string;
  surfaces: readonly string[];
  actions: readonly string[];
  expiresAt: Date;
}

/** The lookup other parts of the service use: the grant, when active and the delegate's. */
export abstract class DelegationGrants {
  abstract activeFor(grantId: string, delegatePersonId: string): Promise<ActiveDelegation | null>;
}

export interface OfferDelegation {
  type: DelegationType;
  delegatePersonId: string;
  surfaces: string[];
  actions: DelegationAction[];
  expiresAt: Date;
  purpose: string | null;
  evidenceReference: string | null;
  /** Lawful basis of the crossing when the delegate is homed in another region (required then). */
  lawfulBasis?: string;
  /** The GDPR Art. 49 article of a `derogation` basis. */
  derogationArticle?: string;
}

/** Data categories that reach a delegate of another region: the grant (naming the principal) and what the principal's surfaces answer. */
const OFFER_CATEGORIES = ['identifiers', 'delegation_grants'];
const ACT_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  me: ['identifiers', 'contact_data'],
  decisions: ['identifiers', 'decision_sessions'],
  consent_records: ['identifiers', 'consent_records'],
  consent_receipts: ['identifiers', 'receipts'],
  authorization_receipts: ['identifiers', 'receipts'],
  grants: ['identifiers', 'agent_grants'],
  authorities: ['identifiers', 'agent_grants'],
  audit: ['identifiers', 'audit_entries'],
};

/**
 * Delegation grants: offered by the principal (a signed-in person's access token), accepted by the
 * delegate, revocable by either; each change is an outbox event (`delegation.*`), recorded by the
 * audit chain. Also checks X-Delegation-Grant-Id for the auth guard.
 */
@Injectable()
export class DelegationGrantsService extends DelegationGrants {
  constructor(
    private readonly repo: DelegationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly platform: PlatformConfig,
    @Optional() @Inject(PERSON_DIRECTORY) private readonly directory: PersonDirectory | null,
    /** The bus (absent in the admin tool, which makes no crossings: a delegate of another region is then refused 503). */
    @Optional() @Inject(RpcClient) private readonly rpc: RpcClient | null = null,
  ) {
    super();
  }

  async offer(principal: Principal, command: OfferDelegation): Promise<DelegationGrant> {
    const personId = ownPerson(principal);
    if (command.delegatePersonId === personId)
      throw delegationError('delegate_is_principal', 'A person cannot delegate to themselves', { field: 'delegate_person_id' });
    const delegateRegion = parseId(command.delegatePersonId)?.region;
    const now = this.clock.now();
    let draft: DelegationGrant;
    if (delegateRegion === this.platform.REGION) {
      const delegate = this.directory ? await this.directory.findById(command.delegatePersonId) : null;
      if (!delegate) throw delegationError('delegate_not_found', 'No such person in this region', { field: 'delegate_person_id' });
      if (command.lawfulBasis || command.derogationArticle) {
        throw delegationError(
          'lawful_basis_not_applicable',
          "The delegate is homed in the principal's region: nothing crosses, so no lawful basis is named",
          { field: command.lawfulBasis ? 'lawful_basis' : 'derogation_article' },
        );
      }
      draft = this.offeredGrant({ ...command, principalPersonId: personId, applicationId: principal.applicationId }, now);
    } else if (isRegion(delegateRegion)) {
      draft = await this.offerAcrossRegions(principal, personId, delegateRegion, command);
    } else {
      throw delegationError('delegate_not_found', 'No such person in this deployment', { field: 'delegate_person_id' });
    }
    return this.repo.transaction(async (manager) => {
      const grant = await this.repo.insert(manager, draft);
      await this.publish(manager, 'delegation.offered', grant, personId, draft.createdAt);
      return grant;
    });
  }

  /**
   * A guardian or power-of-attorney grant created by an operator on reviewed evidence (court order,
   * registered power of attorney): offered in the principal's name, still accepted by the
   * delegate. The event names the reviewer as the one who made the change.
   */
  async offerOnEvidence(
    command: Omit<OfferDelegation, 'type' | 'evidenceReference'> & {
      type: 'guardian' | 'power_of_attorney';
      principalPersonId: string;
      applicationId: string;
      evidenceReference: string;
      reviewedBy: string;
    },
  ): Promise<DelegationGrant> {
    if (command.type !== 'guardian' && command.type !== 'power_of_attorney')
      throw delegationError('delegation_grant_forbidden', 'Only guardian and power-of-attorney grants are created on evidence', {
        field: 'type',
      });
    if (command.delegatePersonId === command.principalPersonId)
      throw delegationError('delegate_is_principal', 'A person cannot delegate to themselves', { field: 'delegate_person_id' });
    const now = this.clock.now();
    return this.repo.transaction(async (manager) => {
      for (const [field, id] of [
        ['principal_person_id', command.principalPersonId],
        ['delegate_person_id', command.delegatePersonId],
      ] as const) {
        if (!(await this.repo.personExists(manager, id)))
          throw delegationError('delegate_not_found', 'No such person in this region', { field });
      }
      const grant = await this.repo.insert(manager, this.offeredGrant(command, now));
      await this.publish(manager, 'delegation.offered', grant, command.reviewedBy, now);
      return grant;
    });
  }

  /**
   * An offer to a delegate homed in another region. The grant stays here, in the principal's home
   * region; the delegate's region is asked only whether the person exists (the opaque id crosses,
   * nothing else). The crossing of the grant to the delegate (identifiers and the grant) is written
   * to this region's transfer register, with the offer's lawful basis, before the grant exists:
   * without a basis, or with one the register refuses, nothing is stored. The grant is created
   * (`created_at`) once the crossing is recorded.
   * @throws DomainError `lawful_basis_required` (422, field `lawful_basis` / `derogation_article`),
   *   `delegate_not_found` (422), the register's `lawful_basis_invalid` (422), `unavailable` (503).
   */
  private async offerAcrossRegions(
    principal: Principal,
    personId: string,
    region: Region,
    command: OfferDelegation,
  ): Promise<DelegationGrant> {
    if (!command.lawfulBasis) {
      throw delegationError(
        'lawful_basis_required',
        `The delegate is homed in region ${region}: the grant and the principal's data reach them across a border, and a crossing needs a lawful basis`,
        { field: 'lawful_basis' },
      );
    }
    const found = await this.bus().inRegion(region).call('gateway.check_person_homed', { personId: command.delegatePersonId });
    if (!found.found)
      throw delegationError('delegate_not_found', "No such person in the delegate's home region", { field: 'delegate_person_id' });
    const draft = this.offeredGrant({ ...command, principalPersonId: personId, applicationId: principal.applicationId }, this.clock.now());
    const crossing = await this.recordCrossing(
      draft,
      region,
      command.lawfulBasis,
      command.derogationArticle ?? null,
      OFFER_CATEGORIES,
      'a delegate homed in another region is granted to act for the principal: the grant naming the principal reaches them',
      `delegation-offer:${draft.id}`,
    );
    return {
      ...draft,
      createdAt: this.clock.now(),
      transfer: { lawfulBasis: command.lawfulBasis, derogationArticle: command.derogationArticle ?? null, transferId: crossing.transferId },
    };
  }

  private bus(): RpcClient {
    if (!this.rpc) throw new DomainError('unavailable', 'service_unavailable', 'Crossings to another region need the bus');
    return this.rpc;
  }

  /** Writes a crossing to the delegate's country in this region's transfer register (idempotent by reference). */
  private recordCrossing(
    grant: DelegationGrant,
    region: Region,
    lawfulBasis: string,
    derogationArticle: string | null,
    dataCategories: readonly string[],
    purpose: string,
    reference: string,
  ): Promise<{ transferId: string; auditEntryId: string }> {
    return this.bus().call('residency.record_transfer', {
      applicationId: grant.applicationId,
      dataCategories: [...dataCategories],
      toCountry: regionCountries(this.platform)[region],
      recipient: grant.delegatePersonId,
      purpose,
      lawfulBasis,
      derogationArticle: derogationArticle ?? '',
      transferCase: 'delegate_in_other_region',
      reference,
      recordIds: [],
    });
  }

  /** A new grant in state `offered`, its surfaces and actions deduplicated and sorted. */
  private offeredGrant(
    offer: Pick<
      DelegationGrant,
      | 'type'
      | 'principalPersonId'
      | 'delegatePersonId'
      | 'applicationId'
      | 'surfaces'
      | 'actions'
      | 'purpose'
      | 'evidenceReference'
      | 'expiresAt'
    >,
    now: Date,
  ): DelegationGrant {
    return {
      id: newRegionalId('delegation_grant', this.platform.REGION),
      type: offer.type,
      principalPersonId: offer.principalPersonId,
      delegatePersonId: offer.delegatePersonId,
      applicationId: offer.applicationId,
      surfaces: [...new Set(offer.surfaces)].sort(),
      actions: [...new Set(offer.actions)].sort(),
      status: 'offered',
      purpose: offer.purpose,
      evidenceReference: offer.evidenceReference,
      expiresAt: offer.expiresAt,
      createdAt: now,
      acceptedAt: null,
      revokedAt: null,
      revokedBy: null,
      transfer: null,
    };
  }

  async get(principal: Principal, id: string): Promise<DelegationGrant> {
    const personId = ownPerson(principal);
    const grant = await this.repo.find(id);
    if (!grant || (grant.principalPersonId !== personId && grant.delegatePersonId !== personId)) {
      throw delegationError('delegation_grant_not_found', 'Delegation grant not found', { delegation_grant_id: id.slice(0, 100) });
    }
    return grant;
  }

  /** The delegate accepts an offered grant; accepting an active one again answers it unchanged. */
  async accept(principal: Principal, id: string): Promise<DelegationGrant> {
    const personId = ownPerson(principal);
    const now = this.clock.now();
    return this.repo.transaction(async (manager) => {
      const grant = await this.locked(manager, personId, id);
      if (grant.delegatePersonId !== personId)
        throw delegationError('delegation_grant_forbidden', 'Only the delegate accepts a delegation grant', { delegation_grant_id: id });
      const status = effectiveStatus(grant, now);
      if (status === 'active') return grant;
      if (status !== 'offered')
        throw delegationError('delegation_grant_transition_not_allowed', `No accept move from ${status}`, { status, action: 'accept' });
      const accepted = await this.repo.accept(manager, id, now);
      await this.publish(manager, 'delegation.accepted', accepted, personId, now);
      return accepted;
    });
  }

  /** Either side revokes; revoking a revoked grant again answers it unchanged. */
  async revoke(principal: Principal, id: string): Promise<DelegationGrant> {
    const personId = ownPerson(principal);
    const now = this.clock.now();
    return this.repo.transaction(async (manager) => {
      const grant = await this.locked(manager, personId, id);
      if (grant.status === 'revoked') return grant;
      const revoked = await this.repo.revoke(manager, id, personId, now);
      await this.publish(manager, 'delegation.revoked', revoked, personId, now);
      return revoked;
    });
  }

  list(
    principal: Principal,
    role: 'principal' | 'delegate' | undefined,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<DelegationGrant[]> {
    return this.repo.listFor(ownPerson(principal), role, limit, after);
  }

  async activeFor(grantId: string, delegatePersonId: string): Promise<ActiveDelegation | null> {
    if (parseId(grantId)?.region !== this.platform.REGION) return null;
    const grant = await this.repo.find(grantId);
    if (!grant || grant.delegatePersonId !== delegatePersonId || effectiveStatus(grant, this.clock.now()) !== 'active') return null;
    return { principalPersonId: grant.principalPersonId, surfaces: grant.surfaces, actions: grant.actions, expiresAt: grant.expiresAt };
  }

  /** The auth guard's check of X-Delegation-Grant-Id: a coded 403 unless the grant covers the request. */
  async check(grantId: string, delegate: Principal, target: DelegationTarget): Promise<DelegationContext> {
    const grant = parseId(grantId)?.region === this.platform.REGION ? await this.repo.find(grantId) : undefined;
    // Only the delegate's own OAuth access token acts under a grant; to anyone else it does not exist.
    if (!grant || delegate.kind !== 'access_token' || !delegate.personId || grant.delegatePersonId !== delegate.personId) {
      throw authError('delegation_grant_not_found', 'Delegation grant not found or not granted to this caller', {
        grant_id: grantId.slice(0, 100),
      });
    }
    const status = effectiveStatus(grant, this.clock.now());
    if (status === 'revoked') throw authError('delegation_grant_revoked', 'The delegation grant was revoked', { grant_id: grant.id });
    if (status === 'expired')
      throw authError('delegation_grant_expired', 'The delegation grant has expired', {
        grant_id: grant.id,
        expired_at: grant.expiresAt.toISOString(),
      });
    if (status === 'offered')
      throw authError('delegation_grant_not_accepted', 'The delegate has not accepted the delegation grant', { grant_id: grant.id });
    if (!grant.surfaces.includes(target.surface) || !grant.actions.includes(target.action)) {
      throw authError('delegation_grant_not_covering', 'The delegation grant does not cover this action', {
        grant_id: grant.id,
        surface: target.surface,
        action: target.action,
      });
    }
    const crossed = await this.recordAct(grant, target);
    return {
      grantId: grant.id,
      principalId: grant.principalPersonId,
      delegateId: grant.delegatePersonId,
      type: grant.type,
      ...(crossed ? { home: { applicationId: grant.applicationId, region: this.platform.REGION } } : {}),
    };
  }

  async delegateRegionOf(grantId: string): Promise<string | undefined> {
    if (parseId(grantId)?.region !== this.platform.REGION) return undefined;
    const grant = await this.repo.find(grantId);
    const region = grant ? parseId(grant.delegatePersonId)?.region : undefined;
    return region && region !== this.platform.REGION ? region : undefined;
  }

  /**
   * A delegate homed in another region acting under the grant receives the principal's data: the
   * crossing (the surface's data categories, under the grant's lawful basis) is written to the
   * transfer register before the request runs, once per grant, surface, action and UTC day (the
   * register answers a repeated reference with its first entry). If it cannot be written, the
   * request is refused and nothing is released. True when the delegate is of another region (the
   * request then runs in the grant's application).
   */
  private async recordAct(grant: DelegationGrant, target: DelegationTarget): Promise<boolean> {
    const region = parseId(grant.delegatePersonId)?.region;
    if (!isRegion(region) || region === this.platform.REGION) return false;
    if (!grant.transfer)
      throw authError(
        'delegation_grant_not_covering',
        'The delegation grant names a delegate of another region without a recorded crossing',
        { grant_id: grant.id, field: 'lawful_basis' },
      );
    const day = this.clock.now().toISOString().slice(0, 10);
    await this.recordCrossing(
      grant,
      region,
      grant.transfer.lawfulBasis,
      grant.transfer.derogationArticle,
      ACT_CATEGORIES[target.surface] ?? ['identifiers'],
      `the delegate acts for the principal: ${target.action} on ${target.surface}`,
      `delegation-act:${grant.id}:${target.surface}:${target.action}:${day}`,
    );
    return true;
  }

  private async locked(manager: EntityManager, personId: string, id: string): Promise<DelegationGrant> {
    const grant = await this.repo.find(id, manager, true);
    if (!grant || (grant.principalPersonId !== personId && grant.delegatePersonId !== personId)) {
      throw delegationError('delegation_grant_not_found', 'Delegation grant not found', { delegation_grant_id: id.slice(0, 100) });
    }
    return grant;
  }

  private async publish(
    manager: EntityManager,
    type: 'delegation.offered' | 'delegation.accepted' | 'delegation.revoked',
    grant: DelegationGrant,
    by: string,
    now: Date,
  ): Promise<void> {
    await this.outbox.add(
      manager,
      type,
      {
        delegationGrantId: grant.id,
        type: grant.type,
        principalId: grant.principalPersonId,
        delegateId: grant.delegatePersonId,
        status: grant.status,
        surfaces: grant.surfaces,
        actions: grant.actions,
        expiresAt: grant.expiresAt.toISOString(),
        changedBy: by,
      },
      { applicationId: grant.applicationId, occurredAt: now },
    );
  }
}

/** The person of a person's own access token (never under another delegation grant). */
function ownPerson(principal: Principal): string {
  if (principal.kind !== 'access_token' || !principal.personId || principal.delegation) {
    throw delegationError('delegation_requires_person', "Delegation grants are managed with a person's own OAuth access token", {
      field: 'Authorization',
    });
  }
  return principal.personId;
}

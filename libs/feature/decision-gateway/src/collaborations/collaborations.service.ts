import { Inject, Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { isIdOf, newRegionalId, type IdRegion } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { PeopleRepository } from '../people/people.repository';
import { GATEWAY_OUTBOX } from '../tokens';
import {
  canAttach,
  canManage,
  canSee,
  mayAnswer,
  statusAfterMove,
  type Collaboration,
  type CollaborationMember,
  type InvitableRole,
  type MemberMove,
} from './collaboration';
import { collaborationError } from './collaborations.errors';
import { CollaborationsRepository } from './collaborations.repository';

/** The party a caller is: the person of an access token, else the application of the API token. */
export function partyOf(principal: Principal): string {
  return principal.personId ?? principal.applicationId;
}

/** A keyset position read from a cursor must be well formed, or it is the cursor that is wrong (400). */
export function checkedInstant(value: string): string {
  if (Number.isNaN(Date.parse(value)))
    throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
  return value;
}

export function checkedSeq(value: string): string {
  if (!/^\d{1,18}$/.test(value))
    throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
  return value;
}

/**
 * Collaborations: created by an application (its owner), parties invited by the owner, each
 * invitation answered by the invited party itself, agreements attached by the owner or members,
 * every change written to the collaboration's history in the same transaction.
 */
/** The history entry of an agreement's final status. */
const DECIDED_EVENTS: Readonly<Record<string, string>> = {
  active: 'agreement.activated',
  declined: 'agreement.declined',
  expired: 'agreement.expired',
  withdrawn: 'agreement.withdrawn',
};

@Injectable()
export class CollaborationsService {
  constructor(
    private readonly collaborations: CollaborationsRepository,
    private readonly people: PeopleRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {}

  /** `collaboration.member_<change>` to the owner application, in the change's transaction. */
  private async publishMemberChange(
    manager: EntityManager,
    collaboration: Collaboration,
    member: CollaborationMember,
    actor: string,
    at: Date,
  ): Promise<void> {
    const change = member.status as 'invited' | 'accepted' | 'declined' | 'revoked';
    await this.outbox.add(
      manager,
      `collaboration.member_${change}`,
      {
        collaborationId: collaboration.id,
        change,
        partyId: member.partyId,
        partyType: member.partyType,
        role: member.role,
        actor,
        changedAt: timestampFromDate(at),
      },
      { applicationId: collaboration.ownerApplicationId, occurredAt: at },
    );
  }

  async create(principal: Principal, name: string): Promise<{ collaboration: Collaboration; member: CollaborationMember }> {
    const now = this.clock.now();
    const collaboration: Collaboration = {
      id: newRegionalId('collaboration', this.config.REGION as IdRegion),
      ownerApplicationId: principal.applicationId,
      name,
      createdAt: now,
      updatedAt: now,
    };
    const member: CollaborationMember = {
      collaborationId: collaboration.id,
      partyId: principal.applicationId,
      partyType: 'application',
      role: 'owner',
      status: 'accepted',
      invitedBy: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.collaborations.transaction(async (manager) => {
      await this.collaborations.insert(manager, collaboration);
      await this.collaborations.insertMember(manager, member);
      await this.collaborations.addEvent(manager, collaboration.id, 'collaboration.created', principal.applicationId, null, now);
    });
    return { collaboration, member };
  }

  /** The collaboration and the caller's membership; a party that is not (or no longer) in it gets 404 like an unknown id. */
  async visible(principal: Principal, id: string): Promise<{ collaboration: Collaboration; member: CollaborationMember }> {
    const collaboration = isIdOf('collaboration', id) ? await this.collaborations.find(id) : undefined;
    const member = collaboration ? await this.collaborations.member(id, partyOf(principal)) : undefined;
    if (!collaboration || !member || !canSee(member)) throw collaborationError('collaboration_not_found', 'Collaboration not found');
    return { collaboration, member };
  }

  async invite(
    principal: Principal,
    id: string,
    invitee: { applicationId?: string; personId?: string; role: InvitableRole },
  ): Promise<CollaborationMember> {
    const { collaboration, member: caller } = await this.visible(principal, id);
    if (!canManage(caller)) throw collaborationError('collaboration_role_forbidden', 'Only the owner invites', { role: caller.role });
    if ((invitee.applicationId === undefined) === (invitee.personId === undefined)) {
      throw collaborationError('collaboration_invitee_invalid', 'Name exactly one of application_id and person_id', {
        field: invitee.applicationId === undefined ? 'application_id' : 'person_id',
      });
    }
    const partyId = (invitee.applicationId ?? invitee.personId)!;
    const field = invitee.applicationId !== undefined ? 'application_id' : 'person_id';
    const known =
      invitee.applicationId !== undefined
        ? await this.collaborations.applicationExists(partyId)
        : (await this.people.findPerson(partyId)) !== undefined;
    if (!known)
      throw collaborationError(
        'collaboration_invitee_not_found',
        `No such ${field === 'application_id' ? 'application' : 'person'} in this region`,
        { field },
      );
    const now = this.clock.now();
    return this.collaborations.transaction(async (manager) => {
      await this.collaborations.find(id, { manager, lock: true });
      const invitation: CollaborationMember = {
        collaborationId: id,
        partyId,
        partyType: invitee.applicationId !== undefined ? 'application' : 'person',
        role: invitee.role,
        status: 'invited',
        invitedBy: principal.applicationId,
        createdAt: now,
        updatedAt: now,
      };
      let result = invitation;
      if (!(await this.collaborations.insertMember(manager, invitation))) {
        const existing = (await this.collaborations.member(id, partyId, { manager, lock: true }))!;
        if (existing.status === 'invited' || existing.status === 'accepted')
          throw collaborationError('collaboration_member_exists', 'The party is already invited or a member', { status: existing.status });
        result = await this.collaborations.reinvite(manager, invitation);
      }
      await this.collaborations.addEvent(manager, id, 'member.invited', principal.applicationId, partyId, now);
      await this.publishMemberChange(manager, collaboration, result, principal.applicationId, now);
      await this.collaborations.touch(manager, id, now);
      return result;
    });
  }

  /** accept / decline by the invited party itself; revoke by the owner (never of the owner). */
  async move(principal: Principal, id: string, partyId: string, move: MemberMove): Promise<CollaborationMember> {
    const { collaboration, member: caller } = await this.visible(principal, id);
    if (move === 'revoke' && !canManage(caller))
      throw collaborationError('collaboration_role_forbidden', 'Only the owner revokes', { role: caller.role });
    const now = this.clock.now();
    return this.collaborations.transaction(async (manager) => {
      const target = await this.collaborations.member(id, partyId, { manager, lock: true });
      if (!target || (move !== 'revoke' && !canSee(target)))
        throw collaborationError('collaboration_member_not_found', 'No such invitation or member');
      if (move !== 'revoke' && !mayAnswer(target, { applicationId: principal.applicationId, personId: principal.personId })) {
        throw collaborationError('collaboration_invitation_not_yours', 'Only the invited party answers its invitation');
      }
      const next = target.role === 'owner' ? undefined : statusAfterMove(target.status, move);
      if (!next)
        throw collaborationError(
          'collaboration_member_status',
          `The ${target.role === 'owner' ? 'owner' : 'membership'} cannot be ${move === 'revoke' ? 'revoked' : `${move}ed`}`,
          { status: target.status },
        );
      const updated = await this.collaborations.setMemberStatus(manager, id, partyId, next, now);
      await this.collaborations.addEvent(manager, id, `member.${next}`, partyOf(principal), partyId, now);
      await this.publishMemberChange(manager, collaboration, updated, partyOf(principal), now);
      await this.collaborations.touch(manager, id, now);
      return updated;
    });
  }

  /** Attaches one of the caller application's agreements (owner or member only). */
  async attach(principal: Principal, id: string, agreementId: string): Promise<void> {
    const { member: caller } = await this.visible(principal, id);
    if (!canAttach(caller))
      throw collaborationError('collaboration_role_forbidden', 'A viewer cannot attach agreements', { role: caller.role });
    const now = this.clock.now();
    await this.collaborations.transaction(async (manager) => {
      const agreement = await this.collaborations.agreementOf(principal.applicationId, agreementId, manager);
      if (!agreement) {
        throw collaborationError('collaboration_agreement_not_found', 'The agreement is not one of your application’s agreements', {
          field: 'agreement_id',
        });
      }
      if (!(await this.collaborations.attach(manager, id, agreementId, principal.applicationId, now))) {
        throw collaborationError('collaboration_agreement_attached', 'The agreement is already attached to this collaboration');
      }
      // The agreement's history so far, in the order it happened; later changes are written as they happen.
      const past: Array<{ type: string; actor: string; at: Date }> = [
        { type: 'agreement.created', actor: principal.applicationId, at: agreement.createdAt },
      ];
      for (const answer of await this.collaborations.partyOutcomes(manager, agreementId))
        past.push({ type: `signature.${answer.outcome}`, actor: answer.partyId, at: answer.decidedAt });
      const final = DECIDED_EVENTS[agreement.status];
      if (final && agreement.decidedAt)
        past.push({
          type: final,
          actor: agreement.status === 'withdrawn' ? principal.applicationId : agreementId,
          at: agreement.decidedAt,
        });
      past.push(...(await this.collaborations.amendmentHistory(manager, agreementId)));
      // A stable sort: events of one instant keep the order above (an answer before the decision it made).
      past.sort((a, b) => a.at.getTime() - b.at.getTime());
      for (const event of past) await this.collaborations.addEvent(manager, id, event.type, event.actor, agreementId, event.at);
      await this.collaborations.addEvent(manager, id, 'agreement.attached', principal.applicationId, agreementId, now);
      await this.collaborations.touch(manager, id, now);
    });
  }
}

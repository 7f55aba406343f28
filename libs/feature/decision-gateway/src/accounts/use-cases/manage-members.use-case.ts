import { Injectable } from '@nestjs/common';
import { roleCovers, type AccountRole } from '@svc/auth';
import { Clock } from '@svc/config';
import type { AccountMember } from '../account';
import { accountsError } from '../accounts.errors';
import { AccountsRepository } from '../accounts.repository';

/**
 * Members of an account. An admin adds, changes and removes members up to admin; the owner's
 * membership changes only through a transfer of ownership, which only the owner makes (the
 * previous owner stays an admin).
 */
@Injectable()
export class ManageMembers {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
  ) {}

  async add(callerRole: AccountRole, accountId: string, personId: string, role: AccountRole): Promise<AccountMember> {
    if (role === 'owner')
      throw accountsError('account_role_insufficient', 'Ownership is transferred, not granted: add the person first, then transfer', {
        required_role: 'owner',
        role: callerRole,
        field: 'role',
      });
    if (!roleCovers(callerRole, 'admin'))
      throw accountsError('account_role_insufficient', 'This needs the admin role in the account', {
        required_role: 'admin',
        role: callerRole,
      });
    if (!(await this.accounts.personExists(personId)))
      throw accountsError('person_not_found', 'No person with this id in this region', { person_id: personId });
    const added = await this.accounts.transaction((manager) =>
      this.accounts.insertMember(manager, accountId, personId, role, this.clock.now()),
    );
    if (!added) throw accountsError('account_member_exists', 'This person is already a member', { person_id: personId });
    return added;
  }

  async changeRole(
    callerRole: AccountRole,
    callerPersonId: string | undefined,
    accountId: string,
    personId: string,
    role: AccountRole,
  ): Promise<AccountMember> {
    const needed: AccountRole = role === 'owner' ? 'owner' : 'admin';
    if (!roleCovers(callerRole, needed))
      throw accountsError('account_role_insufficient', `This needs the ${needed} role in the account`, {
        required_role: needed,
        role: callerRole,
      });
    const now = this.clock.now();
    return this.accounts.transaction(async (manager) => {
      const member = await this.accounts.findMember(manager, accountId, personId, true);
      if (!member) throw accountsError('account_member_not_found', 'Member not found', { person_id: personId });
      if (role === 'owner') {
        if (member.role === 'owner') return member;
        // Transfer: the caller is the owner (an account token is never owner); they become an admin.
        if (callerPersonId === undefined)
          throw accountsError('account_role_insufficient', 'Only the owner transfers ownership', {
            required_role: 'owner',
            role: callerRole,
          });
        await this.accounts.setRole(manager, accountId, callerPersonId, 'admin', now);
        return (await this.accounts.setRole(manager, accountId, personId, 'owner', now))!;
      }
      if (member.role === 'owner')
        throw accountsError('account_owner_protected', 'The owner keeps the owner role until ownership is transferred', {
          person_id: personId,
        });
      return (await this.accounts.setRole(manager, accountId, personId, role, now))!;
    });
  }

  async remove(callerRole: AccountRole, accountId: string, personId: string): Promise<void> {
    if (!roleCovers(callerRole, 'admin'))
      throw accountsError('account_role_insufficient', 'This needs the admin role in the account', {
        required_role: 'admin',
        role: callerRole,
      });
    await this.accounts.transaction(async (manager) => {
      const member = await this.accounts.findMember(manager, accountId, personId, true);
      if (!member) throw accountsError('account_member_not_found', 'Member not found', { person_id: personId });
      if (member.role === 'owner')
        throw accountsError('account_owner_protected', 'The owner cannot be removed; transfer ownership first', { person_id: personId });
      await this.accounts.removeMember(manager, accountId, personId);
    });
  }
}

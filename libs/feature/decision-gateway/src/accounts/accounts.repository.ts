import { Injectable } from '@nestjs/common';
import type { AccountRole } from '@svc/auth';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Account, AccountMember, AccountTokenRecord, AccountTokenRole } from './account';

interface AccountRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}
interface MemberRow {
  account_id: string;
  person_id: string;
  role: AccountRole;
  created_at: Date;
  updated_at: Date;
}
interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  role: AccountTokenRole;
  created_at: Date;
  revoked_at: Date | null;
}

const account = (r: AccountRow): Account => ({ id: r.id, name: r.name, createdAt: r.created_at, updatedAt: r.updated_at });
const member = (r: MemberRow): AccountMember => ({
  accountId: r.account_id,
  personId: r.person_id,
  role: r.role,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const token = (r: TokenRow): AccountTokenRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  role: r.role,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** Queries of accounts, their members and their tokens (schema `gateway`). */
@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertAccount(manager: EntityManager, id: string, name: string, at: Date): Promise<Account> {
    const rows = await queryRows<AccountRow>(
      manager,
      `INSERT INTO gateway.accounts (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING id, name, created_at, updated_at`,
      [id, name, at],
    );
    return account(rows[0]!);
  }

  async findAccount(id: string, manager: EntityManager = this.dataSource.manager): Promise<Account | undefined> {
    const rows = await queryRows<AccountRow>(
      manager,
      `SELECT id, name, created_at, updated_at FROM gateway.accounts WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    );
    return rows[0] ? account(rows[0]) : undefined;
  }

  async renameAccount(manager: EntityManager, id: string, name: string, at: Date): Promise<Account | undefined> {
    const rows = await queryRows<AccountRow>(
      manager,
      `UPDATE gateway.accounts SET name = $2, updated_at = $3 WHERE id = $1 AND deleted_at IS NULL RETURNING id, name, created_at, updated_at`,
      [id, name, at],
    );
    return rows[0] ? account(rows[0]) : undefined;
  }

  async deleteAccount(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.query(`UPDATE gateway.accounts SET deleted_at = $2, updated_at = $2 WHERE id = $1`, [id, at]);
    await manager.query(`UPDATE gateway.account_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE account_id = $1`, [id, at]);
    await manager.query(`DELETE FROM gateway.account_members WHERE account_id = $1`, [id]);
  }

  /** The accounts a person belongs to, with their role, in creation order. */
  async accountsOf(
    personId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Array<{ account: Account; role: AccountRole }>> {
    const rows = await queryRows<AccountRow & { role: AccountRole }>(
      this.dataSource.manager,
      `SELECT a.id, a.name, a.created_at, a.updated_at, m.role FROM gateway.account_members m JOIN gateway.accounts a ON a.id = m.account_id
       WHERE m.person_id = $1 AND a.deleted_at IS NULL AND ($2::timestamptz IS NULL OR (a.created_at, a.id) > ($2::timestamptz, $3))
       ORDER BY a.created_at, a.id LIMIT $4`,
      [personId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map((r) => ({ account: account(r), role: r.role }));
  }

  async memberRole(
    accountId: string,
    personId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<AccountRole | undefined> {
    const rows = await queryRows<{ role: AccountRole }>(
      manager,
      `SELECT m.role FROM gateway.account_members m JOIN gateway.accounts a ON a.id = m.account_id WHERE m.account_id = $1 AND m.person_id = $2 AND a.deleted_at IS NULL`,
      [accountId, personId],
    );
    return rows[0]?.role;
  }

  async personExists(personId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(this.dataSource.manager, `SELECT id FROM gateway.people WHERE id = $1`, [personId]);
    return rows.length > 0;
  }

  /** Inserts a member; undefined when the person is already one. */
  async insertMember(
    manager: EntityManager,
    accountId: string,
    personId: string,
    role: AccountRole,
    at: Date,
  ): Promise<AccountMember | undefined> {
    const rows = await queryRows<MemberRow>(
      manager,
      `INSERT INTO gateway.account_members (account_id, person_id, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT ON CONSTRAINT account_members_pk DO NOTHING RETURNING account_id, person_id, role, created_at, updated_at`,
      [accountId, personId, role, at],
    );
    return rows[0] ? member(rows[0]) : undefined;
  }

  async findMember(manager: EntityManager, accountId: string, personId: string, lock = false): Promise<AccountMember | undefined> {
    const rows = await queryRows<MemberRow>(
      manager,
      `SELECT account_id, person_id, role, created_at, updated_at FROM gateway.account_members WHERE account_id = $1 AND person_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [accountId, personId],
    );
    return rows[0] ? member(rows[0]) : undefined;
  }

  async setRole(
    manager: EntityManager,
    accountId: string,
    personId: string,
    role: AccountRole,
    at: Date,
  ): Promise<AccountMember | undefined> {
    const rows = await queryRows<MemberRow>(
      manager,
      `UPDATE gateway.account_members SET role = $3, updated_at = $4 WHERE account_id = $1 AND person_id = $2 RETURNING account_id, person_id, role, created_at, updated_at`,
      [accountId, personId, role, at],
    );
    return rows[0] ? member(rows[0]) : undefined;
  }

  async removeMember(manager: EntityManager, accountId: string, personId: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `DELETE FROM gateway.account_members WHERE account_id = $1 AND person_id = $2 RETURNING person_id`,
      [accountId, personId],
    );
    return rows.length > 0;
  }

  async listMembers(accountId: string, limit: number, afterPersonId?: string): Promise<AccountMember[]> {
    const rows = await queryRows<MemberRow>(
      this.dataSource.manager,
      `SELECT account_id, person_id, role, created_at, updated_at FROM gateway.account_members
       WHERE account_id = $1 AND ($2::text IS NULL OR person_id > $2) ORDER BY person_id LIMIT $3`,
      [accountId, afterPersonId ?? null, limit],
    );
    return rows.map(member);
  }

  async insertToken(
    manager: EntityManager,
    t: { id: string; accountId: string; digest: string; name: string; role: AccountTokenRole },
    at: Date,
  ): Promise<AccountTokenRecord> {
    const rows = await queryRows<TokenRow>(
      manager,
      `INSERT INTO gateway.account_tokens (id, account_id, token_sha256, name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id, account_id, name, role, created_at, revoked_at`,
      [t.id, t.accountId, t.digest, t.name, t.role, at],
    );
    return token(rows[0]!);
  }

  async findTokenByDigest(digest: string): Promise<AccountTokenRecord | undefined> {
    const rows = await queryRows<TokenRow>(
      this.dataSource.manager,
      `SELECT t.id, t.account_id, t.name, t.role, t.created_at, t.revoked_at FROM gateway.account_tokens t JOIN gateway.accounts a ON a.id = t.account_id
       WHERE t.token_sha256 = $1 AND t.revoked_at IS NULL AND a.deleted_at IS NULL`,
      [digest],
    );
    return rows[0] ? token(rows[0]) : undefined;
  }

  async listTokens(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<AccountTokenRecord[]> {
    const rows = await queryRows<TokenRow>(
      this.dataSource.manager,
      `SELECT id, account_id, name, role, created_at, revoked_at FROM gateway.account_tokens
       WHERE account_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3)) ORDER BY created_at, id LIMIT $4`,
      [accountId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(token);
  }

  async revokeToken(manager: EntityManager, accountId: string, tokenId: string, at: Date): Promise<AccountTokenRecord | undefined> {
    const rows = await queryRows<TokenRow>(
      manager,
      `UPDATE gateway.account_tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND id = $2 RETURNING id, account_id, name, role, created_at, revoked_at`,
      [accountId, tokenId, at],
    );
    return rows[0] ? token(rows[0]) : undefined;
  }

  /** The account owning an application, or null for one made by the admin CLI without an account. */
  async accountOfApplication(applicationId: string): Promise<string | null | undefined> {
    const rows = await queryRows<{ account_id: string | null }>(
      this.dataSource.manager,
      `SELECT account_id FROM gateway.applications WHERE id = $1`,
      [applicationId],
    );
    return rows[0] ? rows[0].account_id : undefined;
  }

  async setApplicationAccount(manager: EntityManager, applicationId: string, accountId: string): Promise<void> {
    await manager.query(`UPDATE gateway.applications SET account_id = $2 WHERE id = $1`, [applicationId, accountId]);
  }

  async countApplications(manager: EntityManager, accountId: string): Promise<number> {
    const rows = await queryRows<{ count: string }>(manager, `SELECT count(*) AS count FROM gateway.applications WHERE account_id = $1`, [
      accountId,
    ]);
    return Number(rows[0]?.count ?? 0);
  }

  async listApplicationIds(
    accountId: string,
    environment: string | undefined,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource.manager,
      `SELECT id FROM gateway.applications WHERE account_id = $1 AND ($2::text IS NULL OR environment = $2)
         AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4)) ORDER BY created_at, id LIMIT $5`,
      [accountId, environment ?? null, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map((r) => r.id);
  }
}

import { Injectable } from '@nestjs/common';
import { sha256Hex } from '@svc/crypto';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { dataRequestError } from './data-requests.errors';

/** One named data set of decision-gateway's own part of an export. */
export interface LocalPart {
  name: string;
  items: unknown[];
}

/**
 * decision-gateway's own data about a person at one application, for a data subject request:
 * the account, the links the application keeps, sign-in sessions, passkeys (credential ids as
 * SHA-256), decision sessions that name the person (by `usr_` id, as a participant, or by a
 * reference the application linked to them), delegation grants at the application, and the
 * person's data requests there. And its erasure.
 */
@Injectable()
export class PersonDataRepository {
  constructor(private readonly dataSource: DataSource) {}

  async export(applicationId: string, personId: string, references: readonly string[]): Promise<LocalPart[]> {
    const q = <T>(sql: string, params: unknown[]) => queryRows<T>(this.dataSource, sql, params);
    const person = await q<Record<string, unknown>>(
      `SELECT id AS person_id, email, email_verified_at, display_name, locale, time_zone, home_country, created_at FROM gateway.people WHERE id = $1`,
      [personId],
    );
    const links = await q<Record<string, unknown>>(
      `SELECT id AS person_link_id, subject_kind, subject_value, created_at FROM gateway.person_links WHERE person_id = $1 AND application_id = $2 ORDER BY created_at, id`,
      [personId, applicationId],
    );
    const signIns = await q<Record<string, unknown>>(
      `SELECT methods, authenticated_at, expires_at, revoked_at FROM gateway.person_sessions WHERE person_id = $1 ORDER BY authenticated_at`,
      [personId],
    );
    const passkeys = await q<{
      credential_id: string;
      device_type: string;
      backed_up: boolean;
      created_at: Date;
      last_used_at: Date | null;
    }>(
      `SELECT credential_id, device_type, backed_up, created_at, last_used_at FROM gateway.passkeys WHERE person_id = $1 ORDER BY created_at`,
      [personId],
    );
    const sessions = await q<Record<string, unknown>>(
      `SELECT kind, status, outcome, flow_id, flow_version, purposes, principal_id, trigger_type, delivery_mode, deadline, created_at, completed_at
         FROM gateway.decision_sessions
        WHERE application_id = $1 AND (principal_id = $2 OR principal_id = ANY($3) OR $2 = ANY(participants))
        ORDER BY created_at`,
      [applicationId, personId, references],
    );
    const delegations = await q<Record<string, unknown>>(
      `SELECT id AS delegation_grant_id, type, principal_person_id, delegate_person_id, surfaces, actions, status, expires_at, created_at, accepted_at, revoked_at
         FROM gateway.delegation_grants WHERE application_id = $1 AND (principal_person_id = $2 OR delegate_person_id = $2) ORDER BY created_at, id`,
      [applicationId, personId],
    );
    const requests = await q<Record<string, unknown>>(
      `SELECT id AS data_request_id, kind, status, raised_by, purposes, received_at, due_at, extended_at, completed_at, rejected_at FROM gateway.data_requests
        WHERE application_id = $1 AND person_id = $2 ORDER BY received_at, id`,
      [applicationId, personId],
    );
    return [
      { name: 'decision-gateway/person', items: person.map(iso) },
      { name: 'decision-gateway/person_links', items: links.map(iso) },
      { name: 'decision-gateway/sign_in_sessions', items: signIns.map(iso) },
      {
        name: 'decision-gateway/passkeys',
        items: passkeys.map((p) =>
          iso({
            credential_id_sha256: sha256Hex(p.credential_id),
            device_type: p.device_type,
            backed_up: p.backed_up,
            created_at: p.created_at,
            last_used_at: p.last_used_at,
          }),
        ),
      },
      { name: 'decision-gateway/decision_sessions', items: sessions.map(iso) },
      { name: 'decision-gateway/delegation_grants', items: delegations.map(iso) },
      { name: 'decision-gateway/data_requests', items: requests.map(iso) },
    ];
  }

  /**
   * Rectification: the person's display name and/or email (lower-cased; the email is then
   * unverified until the next sign-in code proves it). Returns the fields changed; the new email
   * taken by another person answers 409 `data_request_email_taken`.
   */
  async rectify(manager: EntityManager, personId: string, changes: { displayName?: string; email?: string }): Promise<string[]> {
    const fields: string[] = [];
    if (changes.email !== undefined) {
      const taken: unknown[] = await manager.query(`SELECT 1 FROM gateway.people WHERE email = $1 AND id <> $2`, [changes.email, personId]);
      if (taken.length > 0)
        throw dataRequestError('data_request_email_taken', 'Another person of this region has this email', {
          field: 'rectification.email',
        });
      const changed = await manager.query(
        `UPDATE gateway.people SET email = $2, email_verified_at = NULL, email_lookup_digest = NULL, updated_at = now() WHERE id = $1 AND email <> $2`,
        [personId, changes.email],
      );
      if ((changed as [unknown[], number])[1] > 0) fields.push('email');
    }
    if (changes.displayName !== undefined) {
      const changed = await manager.query(
        `UPDATE gateway.people SET display_name = $2, updated_at = now() WHERE id = $1 AND display_name <> $2`,
        [personId, changes.displayName],
      );
      if ((changed as [unknown[], number])[1] > 0) fields.push('display_name');
    }
    return fields;
  }

  /**
   * Erases the person at the application: decision sessions no longer name them (principal,
   * participant, binding evidence, counter proposal), the application's links to them go, and so
   * do their exports. When no other application links to them any more, the account goes too
   * (sign-in sessions, passkeys, challenges and the delegation grants they offered follow by
   * cascade; the grants naming them as delegate, OAuth grants and tokens issued to them are
   * deleted). Returns counts per data set.
   */
  async erase(
    manager: EntityManager,
    applicationId: string,
    personId: string,
    references: readonly string[],
  ): Promise<Record<string, number>> {
    const count = async (sql: string, params: unknown[]) => ((await manager.query(sql, params)) as [unknown[], number])[1];
    const sessions = await count(
      `UPDATE gateway.decision_sessions
          SET principal_id = NULL, principal_binding = NULL, evidence = NULL, counter_proposal = NULL, participants = array_remove(participants, $2)
        WHERE application_id = $1 AND (principal_id = $2 OR principal_id = ANY($3) OR $2 = ANY(participants))`,
      [applicationId, personId, references],
    );
    const links = await count(`DELETE FROM gateway.person_links WHERE application_id = $1 AND person_id = $2`, [applicationId, personId]);
    const exports = await count(`DELETE FROM gateway.data_request_exports WHERE person_id = $1`, [personId]);
    await manager.query(`UPDATE gateway.data_requests SET rectification = NULL WHERE person_id = $1`, [personId]);
    const others: unknown[] = await manager.query(`SELECT 1 FROM gateway.person_links WHERE person_id = $1 LIMIT 1`, [personId]);
    let account = 0;
    let oauth = 0;
    if (others.length === 0) {
      oauth = await count(`DELETE FROM gateway.oauth_models WHERE payload->>'accountId' = $1`, [personId]);
      // Grants naming them as delegate (no foreign key: a delegate may be homed in another region).
      await manager.query(`DELETE FROM gateway.delegation_grants WHERE delegate_person_id = $1`, [personId]);
      account = await count(`DELETE FROM gateway.people WHERE id = $1`, [personId]);
    }
    return { decision_sessions: sessions, person_links: links, exports, oauth_models: oauth, account };
  }
}

/** Dates as RFC 3339 strings. */
function iso(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
}

import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Person } from './person';

interface PersonRow {
  id: string;
  email: string;
  email_verified_at: Date | null;
  display_name: string;
  locale: string;
  time_zone: string;
  home_country: string;
  created_at: Date;
}

const PERSON_COLUMNS = 'p.id, p.email, p.email_verified_at, p.display_name, p.locale, p.time_zone, p.home_country, p.created_at';

function toPerson(row: PersonRow): Person {
  return {
    id: row.id,
    email: row.email,
    emailVerifiedAt: row.email_verified_at,
    displayName: row.display_name,
    locale: row.locale,
    timeZone: row.time_zone,
    homeCountry: row.home_country,
    createdAt: row.created_at,
  };
}

/** The profile a sign-up asks for, kept with its code until the email is verified. */
export interface SignUpProfile {
  display_name: string;
  home_country: string;
  locale: string;
  time_zone: string;
}

export interface EmailCodeChallenge {
  id: string;
  purpose: 'sign_in' | 'sign_up';
  email: string;
  personId: string | null;
  codeDigest: string;
  signUp: SignUpProfile | null;
  returnTo: string;
  failedAttempts: number;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface PersonSessionRow {
  person: Person;
  methods: string[];
  authenticatedAt: Date;
}

export interface Passkey {
  credentialId: string;
  personId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface PersonLink {
  id: string;
  applicationId: string;
  applicationName?: string;
  personId: string;
  subjectKind: 'external_id' | 'email';
  subjectValue: string;
  createdAt: Date;
}

interface PasskeyRow {
  credential_id: string;
  person_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  device_type: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

function toPasskey(row: PasskeyRow): Passkey {
  return {
    credentialId: row.credential_id,
    personId: row.person_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports,
    deviceType: row.device_type,
    backedUp: row.backed_up,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

interface LinkRow {
  id: string;
  application_id: string;
  application_name?: string;
  person_id: string;
  subject_kind: 'external_id' | 'email';
  subject_value: string;
  created_at: Date;
}

function toLink(row: LinkRow): PersonLink {
  return {
    id: row.id,
    applicationId: row.application_id,
    ...(row.application_name !== undefined ? { applicationName: row.application_name } : {}),
    personId: row.person_id,
    subjectKind: row.subject_kind,
    subjectValue: row.subject_value,
    createdAt: row.created_at,
  };
}

export interface PersonInboxQuery {
  personId: string;
  now: Date;
  kind?: 'consent' | 'approval';
  triggerType?: string;
  applicationId?: string;
  sort: 'deadline' | 'newest';
  after?: { at: string; token: string };
  limit: number;
}

export interface PersonInboxRow {
  token_sha256: string;
  kind: 'consent' | 'approval';
  status: string;
  application_id: string;
  application_name: string;
  trigger_type: string | null;
  reference: string | null;
  deadline: Date;
  created_at: Date;
  decision_url: string;
}

/** Queries of people, their codes, sessions, passkeys, throttles and links (gateway schema). */
@Injectable()
export class PeopleRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async findPerson(id: string, manager: EntityManager = this.dataSource.manager): Promise<Person | undefined> {
    const rows: PersonRow[] = await queryRows(manager, `SELECT ${PERSON_COLUMNS} FROM gateway.people p WHERE p.id = $1`, [id]);
    return rows[0] ? toPerson(rows[0]) : undefined;
  }

  async findPersonByEmail(email: string, manager: EntityManager = this.dataSource.manager): Promise<Person | undefined> {
    const rows: PersonRow[] = await queryRows(manager, `SELECT ${PERSON_COLUMNS} FROM gateway.people p WHERE p.email = $1`, [email]);
    return rows[0] ? toPerson(rows[0]) : undefined;
  }

  /** Inserts a person; undefined when the email is already taken. */
  async insertPerson(
    manager: EntityManager,
    person: Omit<Person, 'createdAt'>,
    at: Date,
    emailLookupDigest: Buffer | null = null,
  ): Promise<Person | undefined> {
    const rows: PersonRow[] = await queryRows(
      manager,
      `INSERT INTO gateway.people AS p (id, email, email_verified_at, display_name, locale, time_zone, home_country, created_at, updated_at, email_lookup_digest)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) ON CONFLICT (email) DO NOTHING RETURNING ${PERSON_COLUMNS}`,
      [
        person.id,
        person.email,
        person.emailVerifiedAt,
        person.displayName,
        person.locale,
        person.timeZone,
        person.homeCountry,
        at,
        emailLookupDigest,
      ],
    );
    return rows[0] ? toPerson(rows[0]) : undefined;
  }

  /** Whether a person here has this email lookup digest. */
  async hasEmailLookupDigest(digest: Uint8Array): Promise<boolean> {
    const rows: unknown[] = await queryRows(
      this.dataSource.manager,
      `SELECT 1 FROM gateway.people WHERE email_lookup_digest = $1 LIMIT 1`,
      [Buffer.from(digest)],
    );
    return rows.length > 0;
  }

  /** Sets the email lookup digest of people whose email has none yet, a batch at a time; returns how many. */
  async fillEmailLookupDigests(digestOf: (email: string) => Buffer, batch = 500): Promise<number> {
    let filled = 0;
    for (;;) {
      const rows: Array<{ id: string; email: string }> = await queryRows(
        this.dataSource.manager,
        `SELECT id, email FROM gateway.people WHERE email_lookup_digest IS NULL ORDER BY id LIMIT $1`,
        [batch],
      );
      if (rows.length === 0) return filled;
      for (const row of rows) {
        await queryRows(this.dataSource.manager, `UPDATE gateway.people SET email_lookup_digest = $2 WHERE id = $1 AND email = $3`, [
          row.id,
          digestOf(row.email),
          row.email,
        ]);
      }
      filled += rows.length;
      if (rows.length < batch) return filled;
    }
  }

  /** Marks the email verified; true when it was not verified before. */
  async markEmailVerified(manager: EntityManager, personId: string, at: Date): Promise<boolean> {
    const rows: unknown[] = await queryRows(
      manager,
      `UPDATE gateway.people SET email_verified_at = $2, updated_at = $2 WHERE id = $1 AND email_verified_at IS NULL RETURNING id`,
      [personId, at],
    );
    return rows.length > 0;
  }

  async insertEmailCode(manager: EntityManager, challenge: Omit<EmailCodeChallenge, 'failedAttempts' | 'usedAt'>, at: Date): Promise<void> {
    await queryRows(
      manager,
      `INSERT INTO gateway.person_email_codes (id, purpose, email, person_id, code_digest, sign_up, return_to, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        challenge.id,
        challenge.purpose,
        challenge.email,
        challenge.personId,
        challenge.codeDigest,
        challenge.signUp,
        challenge.returnTo,
        at,
        challenge.expiresAt,
      ],
    );
  }

  /** The challenge, locked for the verifying transaction. */
  async lockEmailCode(manager: EntityManager, id: string): Promise<EmailCodeChallenge | undefined> {
    const rows: Array<{
      id: string;
      purpose: 'sign_in' | 'sign_up';
      email: string;
      person_id: string | null;
      code_digest: string;
      sign_up: SignUpProfile | null;
      return_to: string;
      failed_attempts: number;
      expires_at: Date;
      used_at: Date | null;
    }> = await queryRows(manager, `SELECT * FROM gateway.person_email_codes WHERE id = $1 FOR UPDATE`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      purpose: row.purpose,
      email: row.email,
      personId: row.person_id,
      codeDigest: row.code_digest,
      signUp: row.sign_up,
      returnTo: row.return_to,
      failedAttempts: row.failed_attempts,
      expiresAt: row.expires_at,
      usedAt: row.used_at,
    };
  }

  async recordCodeFailure(manager: EntityManager, id: string): Promise<number> {
    const rows: Array<{ failed_attempts: number }> = await queryRows(
      manager,
      `UPDATE gateway.person_email_codes SET failed_attempts = failed_attempts + 1 WHERE id = $1 RETURNING failed_attempts`,
      [id],
    );
    return rows[0]?.failed_attempts ?? 0;
  }

  async markCodeUsed(manager: EntityManager, id: string, at: Date): Promise<void> {
    await queryRows(manager, `UPDATE gateway.person_email_codes SET used_at = $2 WHERE id = $1`, [id, at]);
  }

  async insertSession(
    manager: EntityManager,
    digest: string,
    personId: string,
    methods: string[],
    at: Date,
    expiresAt: Date,
  ): Promise<void> {
    await queryRows(
      manager,
      `INSERT INTO gateway.person_sessions (session_sha256, person_id, methods, authenticated_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [digest, personId, methods, at, expiresAt],
    );
  }

  async findSession(digest: string, now: Date): Promise<PersonSessionRow | undefined> {
    const rows: Array<PersonRow & { methods: string[]; authenticated_at: Date }> = await queryRows(
      this.dataSource,
      `SELECT ${PERSON_COLUMNS}, s.methods, s.authenticated_at FROM gateway.person_sessions s JOIN gateway.people p ON p.id = s.person_id
       WHERE s.session_sha256 = $1 AND s.revoked_at IS NULL AND s.expires_at > $2`,
      [digest, now],
    );
    const row = rows[0];
    return row ? { person: toPerson(row), methods: row.methods, authenticatedAt: row.authenticated_at } : undefined;
  }

  async revokeSession(digest: string, at: Date): Promise<void> {
    await queryRows(
      this.dataSource,
      `UPDATE gateway.person_sessions SET revoked_at = $2 WHERE session_sha256 = $1 AND revoked_at IS NULL`,
      [digest, at],
    );
  }

  async insertPasskey(manager: EntityManager, passkey: Omit<Passkey, 'lastUsedAt'>): Promise<boolean> {
    const rows: unknown[] = await queryRows(
      manager,
      `INSERT INTO gateway.passkeys (credential_id, person_id, public_key, counter, transports, device_type, backed_up, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (credential_id) DO NOTHING RETURNING credential_id`,
      [
        passkey.credentialId,
        passkey.personId,
        passkey.publicKey,
        passkey.counter,
        passkey.transports,
        passkey.deviceType,
        passkey.backedUp,
        passkey.createdAt,
      ],
    );
    return rows.length > 0;
  }

  async listPasskeys(personId: string): Promise<Passkey[]> {
    const rows: PasskeyRow[] = await queryRows(
      this.dataSource,
      `SELECT * FROM gateway.passkeys WHERE person_id = $1 ORDER BY created_at, credential_id`,
      [personId],
    );
    return rows.map(toPasskey);
  }

  async findPasskey(credentialId: string, manager: EntityManager = this.dataSource.manager): Promise<Passkey | undefined> {
    const rows: PasskeyRow[] = await queryRows(manager, `SELECT * FROM gateway.passkeys WHERE credential_id = $1 FOR UPDATE`, [
      credentialId,
    ]);
    return rows[0] ? toPasskey(rows[0]) : undefined;
  }

  async usePasskey(manager: EntityManager, credentialId: string, counter: number, at: Date): Promise<void> {
    await queryRows(manager, `UPDATE gateway.passkeys SET counter = $2, last_used_at = $3 WHERE credential_id = $1`, [
      credentialId,
      counter,
      at,
    ]);
  }

  async deletePasskey(manager: EntityManager, personId: string, credentialId: string): Promise<boolean> {
    const rows: unknown[] = await queryRows(
      manager,
      `DELETE FROM gateway.passkeys WHERE person_id = $1 AND credential_id = $2 RETURNING credential_id`,
      [personId, credentialId],
    );
    return rows.length > 0;
  }

  async insertChallenge(
    id: string,
    purpose: 'register' | 'authenticate',
    personId: string | null,
    challenge: string,
    returnTo: string,
    expiresAt: Date,
  ): Promise<void> {
    await queryRows(
      this.dataSource,
      `INSERT INTO gateway.webauthn_challenges (id, purpose, person_id, challenge, return_to, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, purpose, personId, challenge, returnTo, expiresAt],
    );
  }

  /** Takes a challenge once: marks it used and returns it, unless unknown, used or expired. */
  async takeChallenge(
    id: string,
    purpose: 'register' | 'authenticate',
    now: Date,
  ): Promise<{ personId: string | null; challenge: string; returnTo: string } | undefined> {
    const rows: Array<{ person_id: string | null; challenge: string; return_to: string }> = await queryRows(
      this.dataSource,
      `UPDATE gateway.webauthn_challenges SET used_at = $3 WHERE id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 RETURNING person_id, challenge, return_to`,
      [id, purpose, now],
    );
    const row = rows[0];
    return row ? { personId: row.person_id, challenge: row.challenge, returnTo: row.return_to } : undefined;
  }

  /** Seconds a throttle key stays locked, or 0. */
  async lockedFor(key: string, now: Date): Promise<number> {
    const rows: Array<{ locked_until: Date | null }> = await queryRows(
      this.dataSource,
      `SELECT locked_until FROM gateway.person_throttles WHERE key = $1`,
      [key],
    );
    const until = rows[0]?.locked_until;
    return until && until > now ? Math.ceil((until.getTime() - now.getTime()) / 1000) : 0;
  }

  /**
   * Counts one event against a fixed window; when the count passes `limit` the key is locked for
   * `lockSeconds`. Returns the seconds the key is now locked for (0 when still allowed).
   */
  async hit(key: string, now: Date, windowSeconds: number, limit: number, lockSeconds: number): Promise<number> {
    const rows: Array<{ count: number; locked_until: Date | null }> = await queryRows(
      this.dataSource,
      `INSERT INTO gateway.person_throttles AS t (key, window_started_at, count) VALUES ($1, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         window_started_at = CASE WHEN t.window_started_at <= $2 - make_interval(secs => $3) THEN $2 ELSE t.window_started_at END,
         count = CASE WHEN t.window_started_at <= $2 - make_interval(secs => $3) THEN 1 ELSE t.count + 1 END,
         locked_until = t.locked_until
       RETURNING count, locked_until`,
      [key, now, windowSeconds],
    );
    const row = rows[0]!;
    if (row.locked_until && row.locked_until > now) return Math.ceil((row.locked_until.getTime() - now.getTime()) / 1000);
    if (row.count > limit) {
      await queryRows(
        this.dataSource,
        `UPDATE gateway.person_throttles SET locked_until = $2, count = 0, window_started_at = $3 WHERE key = $1`,
        [key, new Date(now.getTime() + lockSeconds * 1000), now],
      );
      return lockSeconds;
    }
    return 0;
  }

  async clearThrottle(key: string): Promise<void> {
    await queryRows(this.dataSource, `DELETE FROM gateway.person_throttles WHERE key = $1`, [key]);
  }

  /** Adds one sign-in failure to its window's aggregate. */
  async countFailure(windowStartedAt: Date, method: string, reason: string): Promise<void> {
    await queryRows(
      this.dataSource,
      `INSERT INTO gateway.sign_in_failure_windows AS w (window_started_at, method, reason, failures) VALUES ($1, $2, $3, 1)
       ON CONFLICT (window_started_at, method, reason) DO UPDATE SET failures = w.failures + 1`,
      [windowStartedAt, method, reason],
    );
  }

  /** Closed windows not yet reported, locked for the reporting transaction. */
  async claimClosedFailureWindows(
    manager: EntityManager,
    before: Date,
  ): Promise<Array<{ windowStartedAt: Date; method: string; reason: string; failures: number }>> {
    const rows: Array<{ window_started_at: Date; method: string; reason: string; failures: number }> = await queryRows(
      manager,
      `UPDATE gateway.sign_in_failure_windows SET reported_at = now()
       WHERE (window_started_at, method, reason) IN (
         SELECT window_started_at, method, reason FROM gateway.sign_in_failure_windows
         WHERE reported_at IS NULL AND window_started_at < $1 ORDER BY window_started_at LIMIT 100 FOR UPDATE SKIP LOCKED)
       RETURNING window_started_at, method, reason, failures`,
      [before],
    );
    return rows.map((r) => ({ windowStartedAt: r.window_started_at, method: r.method, reason: r.reason, failures: r.failures }));
  }

  /** Inserts a link; an existing link of the same subject is returned instead (`created` false). */
  async insertLink(manager: EntityManager, link: PersonLink): Promise<{ link: PersonLink; created: boolean }> {
    const inserted: LinkRow[] = await queryRows(
      manager,
      `INSERT INTO gateway.person_links (id, application_id, person_id, subject_kind, subject_value, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (application_id, subject_kind, subject_value) DO NOTHING RETURNING *`,
      [link.id, link.applicationId, link.personId, link.subjectKind, link.subjectValue, link.createdAt],
    );
    if (inserted[0]) return { link: toLink(inserted[0]), created: true };
    const existing: LinkRow[] = await queryRows(
      manager,
      `SELECT * FROM gateway.person_links WHERE application_id = $1 AND subject_kind = $2 AND subject_value = $3`,
      [link.applicationId, link.subjectKind, link.subjectValue],
    );
    return { link: toLink(existing[0]!), created: false };
  }

  async listLinksOfApplication(
    applicationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
    personId?: string,
  ): Promise<PersonLink[]> {
    const rows: LinkRow[] = await queryRows(
      this.dataSource,
      `SELECT * FROM gateway.person_links WHERE application_id = $1
         AND ($2::text IS NULL OR person_id = $2)
         AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4::text))
       ORDER BY created_at, id LIMIT $5`,
      [applicationId, personId ?? null, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toLink);
  }

  async listLinksOfPerson(personId: string): Promise<PersonLink[]> {
    const rows: LinkRow[] = await queryRows(
      this.dataSource,
      `SELECT l.*, a.name AS application_name FROM gateway.person_links l JOIN gateway.applications a ON a.id = l.application_id
       WHERE l.person_id = $1 ORDER BY l.created_at, l.id LIMIT 500`,
      [personId],
    );
    return rows.map(toLink);
  }

  async deleteLink(
    manager: EntityManager,
    id: string,
    owner: { applicationId?: string; personId?: string },
  ): Promise<PersonLink | undefined> {
    const rows: LinkRow[] = await queryRows(
      manager,
      `DELETE FROM gateway.person_links WHERE id = $1 AND ($2::text IS NULL OR application_id = $2) AND ($3::text IS NULL OR person_id = $3) RETURNING *`,
      [id, owner.applicationId ?? null, owner.personId ?? null],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  /** The person an application's subject reference is linked to. */
  async linkedPerson(applicationId: string, subjectKind: 'external_id' | 'email', subjectValue: string): Promise<Person | undefined> {
    const rows: PersonRow[] = await queryRows(
      this.dataSource,
      `SELECT ${PERSON_COLUMNS} FROM gateway.person_links l JOIN gateway.people p ON p.id = l.person_id
       WHERE l.application_id = $1 AND l.subject_kind = $2 AND l.subject_value = $3`,
      [applicationId, subjectKind, subjectValue],
    );
    return rows[0] ? toPerson(rows[0]) : undefined;
  }

  /**
   * The person's pending consent and approval decisions across applications: sessions naming the
   * person (`usr_…`, as principal or participant) or a subject reference an application linked to
   * them, not yet decided by them, before their deadline.
   */
  async personInbox(q: PersonInboxQuery): Promise<PersonInboxRow[]> {
    const newest = q.sort === 'newest';
    const position = newest ? 's.created_at' : 's.deadline';
    const keyset = q.after ? `AND (${position}, s.token_sha256) ${newest ? '<' : '>'} ($6::timestamptz, $7)` : '';
    return queryRows<PersonInboxRow>(
      this.dataSource,
      `WITH refs AS (SELECT application_id, subject_value FROM gateway.person_links WHERE person_id = $2 AND subject_kind = 'external_id')
       SELECT s.token_sha256, s.kind, s.status, s.application_id, a.name AS application_name, s.trigger_type, s.reference, s.deadline, s.created_at, s.decision_url
       FROM gateway.decision_sessions s JOIN gateway.applications a ON a.id = s.application_id
       WHERE s.completed_at IS NULL AND s.deadline > $1 AND s.kind IN ('consent', 'approval')
         AND (s.principal_id = $2 OR $2 = ANY (s.participants)
              OR EXISTS (SELECT 1 FROM refs r WHERE r.application_id = s.application_id AND (r.subject_value = s.principal_id OR r.subject_value = ANY (s.participants))))
         AND NOT EXISTS (SELECT 1 FROM gateway.decision_votes v WHERE v.token_sha256 = s.token_sha256
              AND (v.participant_id = $2 OR v.participant_id IN (SELECT r.subject_value FROM refs r WHERE r.application_id = s.application_id)))
         AND ($3::text IS NULL OR s.kind = $3)
         AND ($4::text IS NULL OR s.trigger_type = $4)
         AND ($5::text IS NULL OR s.application_id = $5)
         ${keyset}
       ORDER BY ${position} ${newest ? 'DESC' : 'ASC'}, s.token_sha256 ${newest ? 'DESC' : 'ASC'}
       LIMIT ${q.after ? '$8' : '$6'}`,
      [
        q.now,
        q.personId,
        q.kind ?? null,
        q.triggerType ?? null,
        q.applicationId ?? null,
        ...(q.after ? [q.after.at, q.after.token] : []),
        q.limit,
      ],
    );
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Amendments of active agreements: a new document each, voted by the agreement's parties under
 * its quorum (one signing session and one vote per party and amendment), at most one open at a
 * time. An adopted amendment becomes the agreement's current document. A signer homed elsewhere
 * has one remote signing per agreement, party and amendment (empty: the agreement itself).
 */
export class CreateAgreementAmendments1810000000001 implements MigrationInterface {
  name = 'CreateAgreementAmendments1810000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.agreement_amendments (
        id text PRIMARY KEY,
        agreement_id text NOT NULL,
        number integer NOT NULL,
        document_sha256 text NOT NULL,
        previous_document_sha256 text NOT NULL,
        status text NOT NULL,
        deadline timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        decided_at timestamptz,
        CONSTRAINT agreement_amendments_id_check CHECK (id ~ '^amd_[a-z2-7]{20}$'),
        CONSTRAINT agreement_amendments_status_check CHECK (status IN ('pending', 'partially_signed', 'adopted', 'rejected', 'expired')),
        CONSTRAINT agreement_amendments_number_key UNIQUE (agreement_id, number),
        CONSTRAINT agreement_amendments_agreement_fk FOREIGN KEY (agreement_id) REFERENCES gateway.agreements (id),
        CONSTRAINT agreement_amendments_document_fk FOREIGN KEY (document_sha256) REFERENCES gateway.agreement_documents (sha256)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX agreement_amendments_open_idx ON gateway.agreement_amendments (agreement_id) WHERE status IN ('pending', 'partially_signed')`,
    );
    await runner.query(`
      CREATE TABLE gateway.agreement_amendment_parties (
        amendment_id text NOT NULL,
        party_id text NOT NULL,
        session_token_sha256 text,
        decision_url text NOT NULL,
        vote text,
        outcome text,
        receipt_jws text,
        counter_proposal jsonb,
        decided_at timestamptz,
        CONSTRAINT agreement_amendment_parties_pk PRIMARY KEY (amendment_id, party_id),
        CONSTRAINT agreement_amendment_parties_vote_check CHECK (vote IN ('yes', 'no', 'counter')),
        CONSTRAINT agreement_amendment_parties_amendment_fk FOREIGN KEY (amendment_id) REFERENCES gateway.agreement_amendments (id),
        CONSTRAINT agreement_amendment_parties_party_fk FOREIGN KEY (party_id) REFERENCES gateway.agreement_parties (id)
      )`);
    await runner.query(`ALTER TABLE gateway.agreements ADD COLUMN current_document_sha256 text`);
    await runner.query(`ALTER TABLE gateway.agreement_remote_signings ADD COLUMN amendment_id text NOT NULL DEFAULT ''`);
    await runner.query(`ALTER TABLE gateway.agreement_remote_signings DROP CONSTRAINT agreement_remote_signings_pk`);
    await runner.query(
      `ALTER TABLE gateway.agreement_remote_signings ADD CONSTRAINT agreement_remote_signings_pk PRIMARY KEY (agreement_id, party_id, amendment_id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM gateway.agreement_remote_signings WHERE amendment_id <> ''`);
    await runner.query(`ALTER TABLE gateway.agreement_remote_signings DROP CONSTRAINT agreement_remote_signings_pk`);
    await runner.query(
      `ALTER TABLE gateway.agreement_remote_signings ADD CONSTRAINT agreement_remote_signings_pk PRIMARY KEY (agreement_id, party_id)`,
    );
    await runner.query(`ALTER TABLE gateway.agreement_remote_signings DROP COLUMN amendment_id`);
    await runner.query(`ALTER TABLE gateway.agreements DROP COLUMN current_document_sha256`);
    await runner.query(`DROP TABLE gateway.agreement_amendment_parties`);
    await runner.query(`DROP TABLE gateway.agreement_amendments`);
  }
}

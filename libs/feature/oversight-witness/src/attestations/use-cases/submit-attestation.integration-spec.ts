import { randomBytes } from 'node:crypto';
import { PlatformConfig, SystemClock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { SigningKeyStore, keysMigrations } from '@svc/key-store';
import { OutboxWriter, createDataSource, dropDatabase, ensureDatabase, runMigrations } from '@svc/persistence';
import { Metrics } from '@svc/telemetry';
import type { DataSource } from 'typeorm';
import type { TrustedAttester } from '../../attesters/attester';
import { oversightMigrations } from '../../migrations';
import type { ResolveAgentClassRoute } from '../../routing/resolve-agent-class-route.use-case';
import { OVERSIGHT_SCHEMA } from '../../schema';
import type { AttestationCommand } from '../attestation';
import { AttestationsRepository } from '../attestations.repository';
import { WitnessReceiptSigner } from '../witness-receipt';
import { SubmitAttestation } from './submit-attestation.use-case';

const url = `${process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432'}/svc_test_witness_${randomBytes(6).toString('hex')}`;
const APPLICATION = 'tp_us_aaaaaaaaaaaaaaaaaaaa';
const ATTESTER_ID = 'tat_us_aaaaaaaaaaaaaaaaaaaa';

/** The application is in oversight mode and routes every class there (the gateway's answer, which needs the bus). */
const oversightRoute = {
  execute: async () => ({ mode: 'oversight', route: 'oversight', configured: false }),
} as unknown as ResolveAgentClassRoute;

/**
 * A submission signs its witness receipt inside the transaction that holds its agent class's
 * sequence lock. The signing key is read before that transaction opens: read inside it on a cold
 * key cache it needed a second connection of the pool, and with the pool's other connections held
 * by submissions queued on the lock, the pool stalled until its acquire timeout (503s, seconds lost).
 */
describe('SubmitAttestation with a pool of one connection', () => {
  let dataSource: DataSource | undefined;
  let keys: SigningKeyStore;
  let submit: SubmitAttestation;
  const attester: TrustedAttester = {
    id: ATTESTER_ID,
    applicationId: APPLICATION,
    name: 'engine',
    permissions: ['attestations:submit'],
    scopeApplicationId: null,
    status: 'active',
    previousTokenExpiresAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    rotatedAt: null,
    suspendedAt: null,
    destroyedAt: null,
    lastHeartbeatAt: null,
    lastHeartbeat: null,
  };
  const command = (sequenceNumber: number): AttestationCommand => ({
    attestationKey: `eng-${sequenceNumber}`,
    applicationId: APPLICATION,
    agentClass: 'payments',
    actionClass: 'payment.initiate',
    decision: 'allow',
    decidedAt: new Date(Date.now() - 30_000).toISOString(),
    sequenceNumber,
    legalBasis: 'contract',
    evidenceDigest: 'ab'.repeat(32),
    context: null,
    requiresHumanApproval: false,
  });

  beforeAll(async () => {
    await ensureDatabase(url);
    dataSource = createDataSource({ url, poolSize: 1, applicationName: 'witness-pool-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, keysMigrations);
    await runMigrations(dataSource, oversightMigrations);
    await dataSource.query(
      `INSERT INTO oversight.trusted_attesters (id, application_id, name, permissions, status, created_at, updated_at) VALUES ($1, $2, 'engine', '{attestations:submit}', 'active', now(), now())`,
      [ATTESTER_ID, APPLICATION],
    );
    keys = new SigningKeyStore(dataSource, 'us', new KeyEncryption(randomBytes(32).toString('base64')));
    await keys.ensureActiveKey();
    const config = Object.assign(new PlatformConfig(), { REGION: 'us', PUBLIC_BASE_URL: 'https://us.svc.example/' });
    submit = new SubmitAttestation(
      new AttestationsRepository(dataSource),
      oversightRoute,
      new WitnessReceiptSigner(keys, config),
      new OutboxWriter(OVERSIGHT_SCHEMA, 'us'),
      new SystemClock(),
      config,
      new Metrics({ service: 'oversight-witness', region: 'us' }),
    );
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await dropDatabase(url);
  });

  it('witnesses an attestation on a cold key cache without a second connection, and again once the cache is cold again', async () => {
    for (const sequence of [1, 2]) {
      keys.reload();
      const started = Date.now();
      const witnessed = await submit.execute(attester, command(sequence));
      expect([witnessed.idempotentReplay, witnessed.attestation.sequenceNumber, witnessed.attestation.status]).toEqual([
        false,
        sequence,
        'witnessed',
      ]);
      // Well under the pool's acquire timeout (5 s), which a second connection would have waited out.
      expect(Date.now() - started).toBeLessThan(2_500);
    }
    const stored = await dataSource!.query(`SELECT count(*)::int AS n FROM oversight.attestations`);
    expect(stored).toEqual([{ n: 2 }]);
  });
});

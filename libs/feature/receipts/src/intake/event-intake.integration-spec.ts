import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { create, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, RpcHandler, serveRpc, type DeliveredEvent, type RpcReplyInit, type RpcRequest, type RpcService } from '@svc/bus';
import { FakeClock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import {
  ApprovalDecidedSchema,
  AuthorityChangedSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
  EventMetaSchema,
  encodeEvent,
  eventSubject,
} from '@svc/contracts';
import { startProcess, type RunningProcess } from '@svc/server';
import { TEST_NATS_URL, createTestDatabase, deleteTestStreams, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';
import { DataSource } from 'typeorm';
import { receiptsFeature } from '../receipts.feature';
import { ReceiptsRepository } from '../storage/receipts.repository';
import { ApprovalDecisions, approvalRecordId } from './approval-decisions.consumer';
import { AuthorityEvents } from './authority-events.consumer';
import { ConsentRecordEvents } from './consent-record-events.consumer';
import { PrincipalPseudonyms, derivePseudonym, referenceDigest } from './principal-pseudonyms';

const APPLICATION_ID = 'app_us_eventintake00000000';
const FLOW_ID = 'flw_us_eventintake00000000';

/** The flow version's wording as consent-records answers it (and, since events carry it, as consent.recorded carries it). */
const WORDING = {
  locale: 'en-GB',
  title: 'Stay in touch',
  description: 'What we do with your email address',
  policyUrl: 'https://acme.example/privacy',
  purposes: [
    { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter', mechanism: 'consent', required: false },
    { key: 'offers', label: 'Partner offers', description: 'Offers from our partners', mechanism: 'consent', required: false },
  ],
  consentDuration: 'P1Y',
};

/** The owners of the data older events lack: decision-gateway's application and consent-records' flow version; counts each call. */
const calls = { application: 0, flow: 0 };

@Controller()
class OwnersOfOlderEventsData {
  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    calls.application += 1;
    return { found: true, applicationId: request.applicationId, name: 'Acme Ltd', jurisdiction: 'GB' };
  }

  @RpcHandler('consent_records.get_flow')
  async getFlow(request: RpcRequest<'consent_records.get_flow'>): Promise<RpcReplyInit<'consent_records.get_flow'>> {
    calls.flow += 1;
    return { found: true, flowId: request.flowId, version: request.version, status: 'active', activeVersion: request.version, ...WORDING };
  }
}

/**
 * Platform-shape item 3, events carry what their consumers need: receipts are frozen from
 * consent.recorded, approval decisions and authority.created alone, with neither decision-gateway
 * nor consent-records running; an event written before the fields existed still gets its receipt,
 * by asking their owners (the upgrade path), and only such an event asks.
 */
describe('receipt intake from the event alone (receipts without decision-gateway and consent-records)', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const prefix = uniqueBusPrefix();
  let database: TestDatabase | undefined;
  let running: RunningProcess | undefined;
  let bus: BusConnection;
  let receipts: ReceiptsRepository;

  beforeAll(async () => {
    database = await createTestDatabase('receipts_event_intake');
    running = await startProcess({
      features: [receiptsFeature],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: 'https://us.example.test' }),
      clock,
    });
    bus = running.app.get(BusConnection);
    receipts = running.app.get(ReceiptsRepository);
  });
  // Runs when the boot above fails too: whatever was created is removed.
  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  /** One event of `type` as the consumer receives it, sealed like the publisher seals it. */
  function delivered<S extends DescMessage>(schema: S, type: string, init: MessageInitShape<S>): DeliveredEvent {
    const id = randomUUID();
    const meta = create(EventMetaSchema, {
      eventId: id,
      eventType: type,
      schemaVersion: 1,
      region: 'us',
      applicationId: APPLICATION_ID,
      occurredAt: timestampFromDate(clock.now()),
    });
    const message = create(schema, { ...init, meta } as MessageInitShape<S>);
    return {
      id,
      subject: eventSubject(prefix, 'us', type),
      eventType: type,
      data: encodeEvent(schema, message, bus.personalData),
      deliveryCount: 1,
    };
  }

  const recordFields = (recordId: string) => ({
    recordId,
    flowId: FLOW_ID,
    flowVersion: 3,
    outcomes: [{ purpose: 'newsletter', decision: 'granted' }],
    collectionChannel: 'controller_attested',
    capturedAt: timestampFromDate(new Date('2026-03-04T10:29:00.000Z')),
    recordedAt: timestampFromDate(clock.now()),
    notice: WORDING,
    application: { name: 'Acme Ltd', jurisdiction: 'GB' },
  });

  const recorded = (recordId: string, carried: boolean) =>
    delivered(ConsentRecordedSchema, 'consent.recorded', {
      recordId,
      flowId: FLOW_ID,
      flowVersion: 3,
      subjectEmail: 'ada@example.com',
      outcomes: [
        { purpose: 'newsletter', decision: 'granted' },
        { purpose: 'offers', decision: 'declined' },
      ],
      collectionChannel: 'controller_attested',
      capturedAt: timestampFromDate(new Date('2026-03-04T10:29:00.000Z')),
      recordedAt: timestampFromDate(clock.now()),
      ...(carried ? { notice: WORDING, application: { name: 'Acme Ltd', jurisdiction: 'GB' } } : {}),
    });

  const frozen = async (recordId: string) => (await receipts.find(APPLICATION_ID, recordId))?.document;

  describe('while no service answers gateway.get_application or consent_records.get_flow', () => {
    it('freezes a consent receipt from consent.recorded: notice, controller and jurisdiction as the event carries them', async () => {
      expect(await running!.app.get(ConsentRecordEvents).handle(recorded('cr_us_fromevent000000000001', true))).toBe(true);
      const document = (await frozen('cr_us_fromevent000000000001'))!;
      expect(document.party_identification).toEqual([
        {
          party_id: APPLICATION_ID,
          party_name: 'Acme Ltd',
          party_role: 'controller',
          party_type: 'organization',
          provenance: 'display_name',
        },
      ]);
      expect(document.pii_processing).toMatchObject({
        language: 'en-GB',
        jurisdiction: 'GB',
        privacy_notice: { reference: `${FLOW_ID}@v3`, url: 'https://acme.example/privacy' },
        purposes: [{ purpose_id: 'newsletter', label: 'Newsletter', lawful_basis: 'consent' }],
      });
      expect(document.event[0]).toMatchObject({ event_state: 'consent given', validity_duration: 'P1Y' });
    });

    it('freezes an approval receipt from approval.granted with the controller the event names', async () => {
      const event = delivered(ApprovalDecidedSchema, 'approval.granted', {
        sessionToken: 'dts_fromevent_approval',
        outcome: 'approved',
        decidedAt: timestampFromDate(clock.now()),
        application: { name: 'Acme Ltd', jurisdiction: '' },
      });
      expect(await running!.app.get(ApprovalDecisions).handle(event)).toBe(true);
      const document = (await frozen(approvalRecordId('dts_fromevent_approval')))!;
      expect(document.party_identification[0]).toMatchObject({ party_name: 'Acme Ltd', provenance: 'display_name' });
      expect(document.pii_processing.jurisdiction).toBe('unspecified');
    });

    it('freezes an authorization receipt from authority.created; an application unknown when it was written is named by its id', async () => {
      const event = delivered(AuthorityChangedSchema, 'authority.created', {
        authorityId: 'auth_us_fromevent00000001',
        agentId: 'agt_us_fromevent000000001',
        principalId: 'ada@example.com',
        status: 'active',
        boundsJson: '{"scope_bounds":{"allowed":["payments:*"]}}',
        validFrom: '2026-03-04T10:30:00.000Z',
        validUntil: '2027-01-01T00:00:00.000Z',
        createdAt: '2026-03-04T10:30:00.000Z',
        agentName: 'shopper',
        withdrawalUrl: 'https://us.example.test/api/v1/authorities/auth_us_fromevent00000001/revoke',
        application: { name: '', jurisdiction: '' },
      });
      expect(await running!.app.get(AuthorityEvents).handle(event)).toBe(true);
      const document = (await frozen('auth_us_fromevent00000001'))!;
      expect(document.party_identification[0]).toEqual({
        party_id: APPLICATION_ID,
        party_name: APPLICATION_ID,
        party_role: 'controller',
        party_type: 'organization',
        provenance: 'declared',
      });
    });
    it("a batch freezes its records together; one that may heal on redelivery fails alone, and a record's withdrawal after it applies", async () => {
      const consumer = running!.app.get(ConsentRecordEvents);
      const grace = delivered(ConsentRecordedSchema, 'consent.recorded', {
        ...recordFields('cr_us_batch0000000000000001'),
        subjectEmail: 'Grace@Example.com',
      });
      const older = recorded('cr_us_batch0000000000000002', false);
      const anonymous = delivered(ConsentRecordedSchema, 'consent.recorded', {
        ...recordFields('cr_us_batch0000000000000003'),
        subjectEmail: '',
      });
      const graceAgain = delivered(ConsentRecordedSchema, 'consent.recorded', {
        ...recordFields('cr_us_batch0000000000000004'),
        subjectEmail: 'grace@example.com',
      });
      const withdrawn = delivered(ConsentRecordRevokedSchema, 'consent.record_revoked', {
        recordId: 'cr_us_batch0000000000000001',
        channel: 'organisation',
        revokedAt: timestampFromDate(clock.now()),
      });
      // Another document under a record id already frozen: refused (never rewritten), the others still commit.
      const rewrite = delivered(ConsentRecordedSchema, 'consent.recorded', {
        ...recordFields('cr_us_fromevent000000000001'),
        outcomes: [{ purpose: 'offers', decision: 'granted' }],
      });
      const batch = [grace, older, anonymous, withdrawn, graceAgain, rewrite];

      const outcomes = await consumer.handleBatch(batch);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as { code?: string }).code))).toEqual([
        true,
        'service_unavailable',
        true,
        true,
        true,
        false,
      ]);
      // The older event (no owner answers its flow now) is not marked: its redelivery freezes it later.
      expect(await frozen('cr_us_batch0000000000000002')).toBeUndefined();
      const inbox: Array<{ message_id: string }> = await running!.app
        .get(DataSource)
        .query(`SELECT message_id FROM receipts.inbox WHERE consumer = 'receipts-consent-records' AND message_id = ANY($1::text[])`, [
          batch.map((e) => e.id),
        ]);
      expect(new Set(inbox.map((row) => row.message_id))).toEqual(
        new Set([grace.id, anonymous.id, withdrawn.id, graceAgain.id, rewrite.id]),
      );
      // One person, one pseudonym, whatever the case of the address; a record about nobody has none.
      const principal = async (recordId: string) => (await frozen(recordId))!.record.pii_principal_id;
      expect(await principal('cr_us_batch0000000000000001')).toMatch(/^psn_/);
      expect(await principal('cr_us_batch0000000000000004')).toBe(await principal('cr_us_batch0000000000000001'));
      expect((await frozen('cr_us_batch0000000000000003'))!.record).toMatchObject({ anonymous: true });
      expect((await frozen('cr_us_batch0000000000000003'))!.record).not.toHaveProperty('pii_principal_id');
      expect((await receipts.transitions('cr_us_batch0000000000000001')).map((t) => t.type)).toEqual(['consent_withdrawn']);

      // The whole batch delivered again changes nothing that was applied.
      const again = await consumer.handleBatch(batch.map((e) => ({ ...e, deliveryCount: 2 })));
      expect(again.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected'))).toEqual([false, 'rejected', false, false, false, false]);
      expect((await frozen('cr_us_fromevent000000000001'))!.pii_processing.purposes.map((p) => p.purpose_id)).toEqual(['newsletter']);
    });
  });

  describe('an event written before the fields existed (upgrade path)', () => {
    let owners: RpcService | undefined;
    let ownersBus: BusConnection | undefined;

    beforeAll(async () => {
      ownersBus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'receipts-event-intake-owners' });
      owners = await serveRpc(ownersBus, [OwnersOfOlderEventsData]);
      await ownersBus.nc.flush();
    });
    afterAll(async () => {
      await owners?.close();
      await ownersBus?.close();
    });

    it('still gets its receipt, asking decision-gateway and consent-records for what it lacks', async () => {
      calls.application = 0;
      calls.flow = 0;
      expect(await running!.app.get(ConsentRecordEvents).handle(recorded('cr_us_olderevent00000000001', false))).toBe(true);
      expect(calls).toEqual({ application: 1, flow: 1 });
      const document = (await frozen('cr_us_olderevent00000000001'))!;
      const fromEvent = (await frozen('cr_us_fromevent000000000001'))!;
      // The same record's receipt either way: same notice (hash included), controller and jurisdiction.
      expect(document.pii_processing).toEqual(fromEvent.pii_processing);
      expect(document.party_identification).toEqual(fromEvent.party_identification);
    });

    it('an older approval decision gets its receipt naming the controller decision-gateway answers', async () => {
      calls.application = 0;
      const event = delivered(ApprovalDecidedSchema, 'approval.denied', {
        sessionToken: 'dts_olderevent_approval',
        outcome: 'denied',
        decidedAt: timestampFromDate(clock.now()),
      });
      expect(await running!.app.get(ApprovalDecisions).handle(event)).toBe(true);
      expect(calls.application).toBe(1);
      const document = (await frozen(approvalRecordId('dts_olderevent_approval')))!;
      expect(document.party_identification[0]).toMatchObject({ party_name: 'Acme Ltd', provenance: 'display_name' });
      expect(document.pii_processing.jurisdiction).toBe('GB');
    });

    it('an event that carries the fields asks nobody, even with the owners running', async () => {
      calls.application = 0;
      calls.flow = 0;
      expect(await running!.app.get(ConsentRecordEvents).handle(recorded('cr_us_fromevent000000000002', true))).toBe(true);
      expect(calls).toEqual({ application: 0, flow: 0 });
      expect(await frozen('cr_us_fromevent000000000002')).toBeDefined();
    });
  });

  describe('pseudonymous principal ids', () => {
    const keyRows = async (): Promise<number> => {
      const rows: Array<{ n: number }> = await running!.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM receipts.subject_pseudonym_keys WHERE application_id = $1`, [APPLICATION_ID]);
      return rows[0]!.n;
    };

    it('a person keeps one pseudonym per application, however many first uses race, until their key is shredded', async () => {
      const pseudonyms = running!.app.get(PrincipalPseudonyms);
      const reference = { kind: 'email' as const, value: 'racing.person@example.com' };
      const before = await keyRows();
      const first = await Promise.all(Array.from({ length: 8 }, () => pseudonyms.pseudonym(APPLICATION_ID, reference)));
      expect(new Set(first).size).toBe(1);
      expect(first[0]).toMatch(/^psn_[A-Za-z0-9_-]{43}$/);
      expect(await pseudonyms.pseudonym(APPLICATION_ID, reference)).toBe(first[0]);
      expect(await keyRows()).toBe(before + 1);
      expect(await pseudonyms.pseudonym('app_us_otherapplication0000', reference)).not.toBe(first[0]);

      const valueSha256 = createHash('sha256').update(reference.value, 'utf8').digest('hex');
      expect(await pseudonyms.shred(APPLICATION_ID, [{ kind: 'email', valueSha256 }])).toBe(1);
      expect(await pseudonyms.pseudonym(APPLICATION_ID, reference)).not.toBe(first[0]);
    });

    it('batches creating the same people in other orders agree on every pseudonym, one secret per person', async () => {
      const pseudonyms = running!.app.get(PrincipalPseudonyms);
      const people = Array.from({ length: 12 }, (_, i) => ({
        applicationId: APPLICATION_ID,
        reference: { kind: 'email' as const, value: `batch.person.${i}@example.com` },
      }));
      const before = await keyRows();
      const answers = await Promise.all([
        pseudonyms.pseudonyms(people),
        pseudonyms.pseudonyms([...people].reverse()),
        pseudonyms.pseudonyms([...people.slice(6), ...people.slice(0, 6), people[0]!]),
      ]);
      expect(answers[1]).toEqual([...answers[0]!].reverse());
      expect(answers[2]).toEqual([...answers[0]!.slice(6), ...answers[0]!.slice(0, 6), answers[0]![0]]);
      expect(new Set(answers[0]).size).toBe(12);
      expect(await keyRows()).toBe(before + 12);
      expect(await pseudonyms.pseudonym(APPLICATION_ID, people[3]!.reference)).toBe(answers[0]![3]);
    });

    it("a first use that waited on another's uncommitted secret answers with that secret once it commits", async () => {
      const pseudonyms = running!.app.get(PrincipalPseudonyms);
      const reference = { kind: 'external_id' as const, value: 'waiting-person' };
      const digest = referenceDigest(reference.kind, createHash('sha256').update(reference.value, 'utf8').digest('hex'));
      const secret = randomBytes(32);
      const other = running!.app.get(DataSource).createQueryRunner();
      await other.connect();
      try {
        await other.startTransaction();
        await other.query(
          `INSERT INTO receipts.subject_pseudonym_keys (application_id, reference_digest, secret_encrypted, created_at) VALUES ($1, $2, $3, now())`,
          [APPLICATION_ID, digest, running!.app.get(KeyEncryption).encrypt(secret, `subject-pseudonym:${APPLICATION_ID}:${digest}`)],
        );
        const answer = pseudonyms.pseudonym(APPLICATION_ID, reference);
        // The call's insert waits on the uncommitted row; it started before the commit below.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await other.commitTransaction();
        expect(await answer).toBe(derivePseudonym(secret, reference));
      } finally {
        await other.release();
      }
    });
  });
});

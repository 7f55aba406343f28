import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';
import { bearer, compliantFlow, draftFlow, recordConsent } from './support';

interface Room {
  id: string;
  status: string;
  role: string;
  partner_purpose: string | null;
  audit_entry_ids: string[];
}
interface Comparison {
  counts: { initiator_audience: number | null; partner_audience: number | null; overlap: number | null };
  suppressed: string[];
  audit_entry_id: string;
}

/**
 * Issue 18 item 7 (Comply: clean rooms): two applications compare consented audiences as counts
 * only, over people whose consent covers each party's purpose, with a minimum cohort size; both
 * must accept; counts below the minimum are suppressed; no row leaves.
 */
describe('Comply: clean rooms (eu region)', () => {
  let stack: TestRegions;
  let eu: string;
  const apps: Record<'a' | 'b' | 'c', { id: string; token: string }> = {} as never;
  let withdrawable: string;

  beforeAll(async () => {
    stack = await startRegions('comply_clean_rooms', { regions: ['eu'] });
    eu = stack.url.eu;
    for (const name of ['a', 'b', 'c'] as const) {
      const created = await stack.process.eu.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: `clean-room-${name}`, environment: 'development' }));
      apps[name] = { id: created.application.id, token: created.apiToken };
    }
    const flowA = await draftFlow(eu, apps.a.token, compliantFlow());
    const flowB = await draftFlow(
      eu,
      apps.b.token,
      compliantFlow({
        purposes: [
          { key: 'reach', label: 'Reach', mechanism: 'consent', required: false },
          { key: 'profiling', label: 'Profiling', mechanism: 'legitimate_interest', required: false },
        ],
      }),
    );
    for (const [app, flow] of [
      [apps.a, flowA],
      [apps.b, flowB],
    ] as const)
      expect((await http('POST', `${eu}/api/v1/flows/${flow}/activate`, { headers: bearer(app.token) })).status).toBe(200);
    // a: people 0-29 consent to measurement; 40 declines. b: people 15-39 consent to reach (15 in both); 41 declines.
    for (let i = 0; i < 30; i += 1) await recordConsent(eu, apps.a.token, flowA, `person${i}@example.com`, { measurement: 'granted' });
    await recordConsent(eu, apps.a.token, flowA, 'person40@example.com', { measurement: 'declined' });
    for (let i = 15; i < 40; i += 1) {
      const id = await recordConsent(eu, apps.b.token, flowB, i === 20 ? `PERSON${i}@Example.com` : `person${i}@example.com`, {
        reach: 'granted',
      });
      if (i === 39) withdrawable = id;
    }
    await recordConsent(eu, apps.b.token, flowB, 'person41@example.com', { reach: 'declined' });
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
  });

  let roomId: string;

  it('proposes a room to another application of the region, for a consent purpose only', async () => {
    const notConsent = await http('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.a.token),
      json: { name: 'Q1 reach', partner_application_id: apps.b.id, purpose: 'service', min_cohort_size: 10 },
    });
    expect([notConsent.status, notConsent.body.reason_code, (notConsent.body.detail as { field: string }).field]).toEqual([
      422,
      'clean_room_purpose_invalid',
      'purpose',
    ]);
    const self = await http('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.a.token),
      json: { name: 'Q1 reach', partner_application_id: apps.a.id, purpose: 'measurement' },
    });
    expect([self.status, (self.body.detail as { field: string }).field]).toEqual([422, 'partner_application_id']);
    const tiny = await http('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.a.token),
      json: { name: 'Q1 reach', partner_application_id: apps.b.id, purpose: 'measurement', min_cohort_size: 2 },
    });
    expect([tiny.status, (tiny.body.detail as { field?: string }).field]).toEqual([422, 'min_cohort_size']);
    const res = await http<Room>('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.a.token),
      json: { name: 'Q1 reach', partner_application_id: apps.b.id, purpose: 'measurement', min_cohort_size: 10 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'proposed', role: 'initiator', partner_purpose: null });
    expect(res.body.audit_entry_ids).toHaveLength(1);
    roomId = res.body.id;
  });

  it('compares nothing until the partner accepts; only the partner accepts; a third application sees nothing', async () => {
    const early = await http('POST', `${eu}/api/v1/clean_rooms/${roomId}/comparisons`, { headers: bearer(apps.a.token) });
    expect([early.status, early.body.reason_code]).toEqual([409, 'clean_room_state_invalid']);
    const byInitiator = await http('POST', `${eu}/api/v1/clean_rooms/${roomId}/accept`, {
      headers: bearer(apps.a.token),
      json: { purpose: 'measurement' },
    });
    expect([byInitiator.status, byInitiator.body.reason_code]).toEqual([403, 'clean_room_forbidden']);
    const outsider = await http('GET', `${eu}/api/v1/clean_rooms/${roomId}`, { headers: bearer(apps.c.token) });
    expect([outsider.status, outsider.body.reason_code]).toEqual([404, 'clean_room_not_found']);
    const wrongPurpose = await http('POST', `${eu}/api/v1/clean_rooms/${roomId}/accept`, {
      headers: bearer(apps.b.token),
      json: { purpose: 'profiling' },
    });
    expect([wrongPurpose.status, (wrongPurpose.body.detail as { field: string }).field]).toEqual([422, 'purpose']);
    const accepted = await http<Room>('POST', `${eu}/api/v1/clean_rooms/${roomId}/accept`, {
      headers: bearer(apps.b.token),
      json: { purpose: 'reach' },
    });
    expect(accepted.body).toMatchObject({ status: 'active', role: 'partner', partner_purpose: 'reach' });
    expect(accepted.body.audit_entry_ids).toHaveLength(2);
  });

  it('answers counts only, over consented people, matched by email whatever its case', async () => {
    const res = await http<Comparison>('POST', `${eu}/api/v1/clean_rooms/${roomId}/comparisons`, { headers: bearer(apps.b.token) });
    expect(res.status).toBe(201);
    expect(res.body.counts).toEqual({ initiator_audience: 30, partner_audience: 25, overlap: 15 });
    expect(res.body.suppressed).toEqual([]);
    // No row, id or email leaves: the body holds counts and the room's own fields only.
    expect(JSON.stringify(res.body)).not.toMatch(/example\.com|crec_/i);
    const entry = await http<{ type: string; canonical: string }>('GET', `${eu}/api/v1/audit/entries/${res.body.audit_entry_id}`, {
      headers: bearer(apps.b.token),
    });
    expect(entry.body.type).toBe('clean_room.compared');
    expect(entry.body.canonical).not.toMatch(/example\.com/i);
  });

  it('a withdrawal leaves the audience; a small remainder suppresses the overlap; small audiences are suppressed', async () => {
    const withdrawn = await http('POST', `${eu}/api/v1/consent_records/${withdrawable}/withdrawals`, {
      headers: bearer(apps.b.token),
      json: { purpose: 'reach' },
    });
    expect(withdrawn.status).toBeLessThan(300);
    const after = await http<Comparison>('POST', `${eu}/api/v1/clean_rooms/${roomId}/comparisons`, { headers: bearer(apps.a.token) });
    // b has 24 left, 9 of them outside the overlap: fewer than 10, so the overlap would single them out.
    expect(after.body).toMatchObject({ counts: { initiator_audience: 30, partner_audience: 24, overlap: null }, suppressed: ['overlap'] });

    const strict = await http<Room>('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.a.token),
      json: { name: 'strict', partner_application_id: apps.b.id, purpose: 'measurement', min_cohort_size: 25 },
    });
    await http('POST', `${eu}/api/v1/clean_rooms/${strict.body.id}/accept`, { headers: bearer(apps.b.token), json: { purpose: 'reach' } });
    const small = await http<Comparison>('POST', `${eu}/api/v1/clean_rooms/${strict.body.id}/comparisons`, {
      headers: bearer(apps.a.token),
    });
    expect(small.body).toMatchObject({
      counts: { initiator_audience: 30, partner_audience: null, overlap: null },
      suppressed: ['partner_audience', 'overlap'],
    });

    const history = await http<{ data: Comparison[] }>('GET', `${eu}/api/v1/clean_rooms/${roomId}/comparisons`, {
      headers: bearer(apps.a.token),
    });
    expect(history.body.data.map((c) => c.counts.overlap)).toEqual([15, null]);
  });

  it('a declined room never compares; rooms list for both parties with cursors', async () => {
    // An application without an active consent flow for the purpose cannot propose a room.
    const noFlow = await http('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.c.token),
      json: { name: 'c asks', partner_application_id: apps.b.id, purpose: 'measurement' },
    });
    expect([noFlow.status, noFlow.body.reason_code]).toEqual([422, 'clean_room_purpose_invalid']);
    const proposal = await http<Room>('POST', `${eu}/api/v1/clean_rooms`, {
      headers: bearer(apps.b.token),
      json: { name: 'b asks', partner_application_id: apps.a.id, purpose: 'reach' },
    });
    expect(
      (await http<Room>('POST', `${eu}/api/v1/clean_rooms/${proposal.body.id}/decline`, { headers: bearer(apps.a.token) })).body.status,
    ).toBe('declined');
    const compare = await http('POST', `${eu}/api/v1/clean_rooms/${proposal.body.id}/comparisons`, { headers: bearer(apps.b.token) });
    expect(compare.status).toBe(409);
    const first = await http<{ data: Room[]; has_more: boolean; next_cursor: string }>('GET', `${eu}/api/v1/clean_rooms?limit=2`, {
      headers: bearer(apps.b.token),
    });
    expect([first.body.data.length, first.body.has_more]).toEqual([2, true]);
    const rest = await http<{ data: Room[]; has_more: boolean }>('GET', `${eu}/api/v1/clean_rooms?cursor=${first.body.next_cursor}`, {
      headers: bearer(apps.b.token),
    });
    expect([rest.body.data.map((r) => r.status), rest.body.has_more]).toEqual([['declined'], false]);
  });
});

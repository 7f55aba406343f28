import { MAX_EXTENSION_DAYS, complete, extend, initialDueAt, isOverdue, reject, start, type DataRequest } from './data-request';

const DAY = 86_400_000;
const received = new Date('2026-03-01T10:00:00.000Z');

function request(overrides: Partial<DataRequest> = {}): DataRequest {
  return {
    id: 'dsr_us_aaaaaaaaaaaaaaaaaaaa',
    applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    personId: 'usr_us_aaaaaaaaaaaaaaaaaaaa',
    kind: 'access',
    status: 'received',
    raisedBy: 'person',
    purposes: [],
    rectification: null,
    receivedAt: received,
    dueAt: initialDueAt(received),
    extendedAt: null,
    extensionReason: null,
    startedAt: null,
    completedAt: null,
    rejectedAt: null,
    rejectionReason: null,
    result: {},
    updatedAt: received,
    ...overrides,
  };
}

const at = (days: number) => new Date(received.getTime() + days * DAY);
const ok = (o: ReturnType<typeof extend>): DataRequest => {
  if ('refused' in o) throw new Error(`refused: ${o.refused.code}`);
  return o.ok;
};

describe('data request clock (GDPR Art. 12(3))', () => {
  it('is due 30 days after receipt and overdue only after that instant, while open', () => {
    expect(initialDueAt(received).toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(isOverdue(request(), at(30))).toBe(false);
    expect(isOverdue(request(), new Date(at(30).getTime() + 1))).toBe(true);
    expect(isOverdue(request({ status: 'completed' }), at(40))).toBe(false);
    expect(isOverdue(request({ status: 'rejected' }), at(40))).toBe(false);
  });

  it('extends once, with a reason, by up to 60 days from the current deadline', () => {
    const extended = ok(extend(request(), MAX_EXTENSION_DAYS, 'many records in three systems', at(10)));
    expect(extended.dueAt.toISOString()).toBe('2026-05-30T10:00:00.000Z');
    expect(extended.extendedAt).toEqual(at(10));
    expect(extended.extensionReason).toBe('many records in three systems');
    expect(extend(extended, 1, 'again', at(11))).toEqual({ refused: { code: 'data_request_already_extended' } });
  });

  it('refuses 0, 61 and fractional days, an overdue request and a final one', () => {
    for (const days of [0, 61, 1.5])
      expect(extend(request(), days, 'x', at(1))).toEqual({ refused: { code: 'data_request_extension_invalid', maxDays: 60 } });
    expect(extend(request(), 10, 'x', at(31))).toEqual({ refused: { code: 'data_request_overdue', dueAt: initialDueAt(received) } });
    expect(extend(request({ status: 'completed' }), 10, 'x', at(1))).toEqual({
      refused: { code: 'data_request_final', status: 'completed' },
    });
  });

  it('moves received → in_progress → completed, and refuses any move of a final request', () => {
    const started = ok(start(request(), at(1)));
    expect(started).toMatchObject({ status: 'in_progress', startedAt: at(1) });
    expect(start(started, at(2))).toEqual({ refused: { code: 'data_request_not_started', status: 'in_progress' } });
    const done = ok(complete(started, { erased: true }, at(3)));
    expect(done).toMatchObject({ status: 'completed', completedAt: at(3), startedAt: at(1), result: { erased: true } });
    expect(complete(done, {}, at(4))).toEqual({ refused: { code: 'data_request_final', status: 'completed' } });
    expect(reject(done, 'no', at(4))).toEqual({ refused: { code: 'data_request_final', status: 'completed' } });
    expect(start(done, at(4))).toEqual({ refused: { code: 'data_request_final', status: 'completed' } });
  });

  it('rejects an open request with its reason and forgets pending contact data', () => {
    const rejected = ok(
      reject(request({ kind: 'rectification', rectification: { email: 'new@example.test' } }), 'identity not proven', at(2)),
    );
    expect(rejected).toMatchObject({ status: 'rejected', rejectedAt: at(2), rejectionReason: 'identity not proven', rectification: null });
  });
});

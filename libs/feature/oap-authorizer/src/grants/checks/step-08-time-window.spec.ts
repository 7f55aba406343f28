import { PASS, context, denied, history, request, run } from '../../../test/cascade-fixtures';
import type { GrantHistory } from './cascade-step';
import type { TimeBounds } from '../../authorities/bounds';
import { step08TimeWindow } from './step-08-time-window';

const verdict = (timeBounds: TimeBounds | undefined, now: string, validUntil?: string, counts: Partial<GrantHistory['buckets']> = {}) => {
  const at = new Date(now);
  return run(
    step08TimeWindow,
    context(timeBounds ? { time_bounds: timeBounds } : {}, {
      now: at,
      request: request({ validUntil: validUntil ? new Date(validUntil) : new Date(at.getTime() + 60_000) }),
      history: history({ buckets: { minute: 0, hour: 0, day: 0, ...counts } }),
    }),
  );
};
const OUTSIDE_BEFORE = denied('outside_time_window', 'Before the allowed time window');
const OUTSIDE_AFTER = denied('outside_time_window', 'Beyond the allowed time window');

describe('step 8 — time window', () => {
  it('denies when the authority configures no time bounds', () => {
    expect(verdict(undefined, '2026-03-04T10:30:00Z')).toEqual(
      denied('time_bounds_not_configured', 'The authority configures no time bounds'),
    );
  });

  it('passes at any time when time bounds are unrestricted', () => {
    expect(verdict({ unrestricted: true, hours_utc: [8, 9], days: [1] }, '2026-03-08T03:00:00Z')).toEqual(PASS);
  });

  it('passes an empty time bound (nothing restricted)', () => {
    expect(verdict({}, '2026-03-08T03:00:00Z')).toEqual(PASS);
  });

  describe('not_before', () => {
    const bounds = { not_before: '2026-03-04T10:00:00.000Z' };
    it('denies a millisecond before, passes from the instant on', () => {
      expect(verdict(bounds, '2026-03-04T09:59:59.999Z')).toEqual(OUTSIDE_BEFORE);
      expect(verdict(bounds, '2026-03-04T10:00:00.000Z')).toEqual(PASS);
    });
  });

  describe('not_after', () => {
    const bounds = { not_after: '2026-03-04T12:00:00.000Z' };
    it('passes up to a millisecond before with valid_until at not_after', () => {
      expect(verdict(bounds, '2026-03-04T11:59:59.999Z', '2026-03-04T12:00:00.000Z')).toEqual(PASS);
    });
    it('denies from not_after on', () => {
      expect(verdict(bounds, '2026-03-04T12:00:00.000Z', '2026-03-04T12:30:00.000Z')).toEqual(OUTSIDE_AFTER);
      expect(verdict(bounds, '2026-03-04T13:00:00.000Z')).toEqual(OUTSIDE_AFTER);
    });
    it('denies at not_after on its own, not only through valid_until', () => {
      expect(verdict(bounds, '2026-03-04T12:00:00.000Z', '2026-03-04T12:00:00.000Z')).toEqual(OUTSIDE_AFTER);
    });
    it('denies a requested valid_until a millisecond beyond not_after', () => {
      expect(verdict(bounds, '2026-03-04T10:00:00.000Z', '2026-03-04T12:00:00.001Z')).toEqual(OUTSIDE_AFTER);
    });
  });

  describe('hours_utc [start, end)', () => {
    const bounds = { hours_utc: [8, 18] as [number, number] };
    it('passes from the start hour to the last minute before the end hour', () => {
      expect(verdict(bounds, '2026-03-04T08:00:00.000Z')).toEqual(PASS);
      expect(verdict(bounds, '2026-03-04T17:59:59.999Z')).toEqual(PASS);
    });
    it('denies the hour before the start and the end hour itself', () => {
      expect(verdict(bounds, '2026-03-04T07:59:59.999Z')).toEqual(denied('outside_time_window', 'Outside the allowed UTC hours 8-18'));
      expect(verdict(bounds, '2026-03-04T18:00:00.000Z')).toEqual(denied('outside_time_window', 'Outside the allowed UTC hours 8-18'));
    });
  });

  describe('days (ISO weekdays, Monday 1 to Sunday 7)', () => {
    it('passes a listed weekday and denies an unlisted one', () => {
      expect(verdict({ days: [1, 3] }, '2026-03-04T10:00:00Z')).toEqual(PASS); // Wednesday
      expect(verdict({ days: [1, 3] }, '2026-03-02T10:00:00Z')).toEqual(PASS); // Monday
      expect(verdict({ days: [1, 2, 4, 5] }, '2026-03-04T10:00:00Z')).toEqual(
        denied('outside_time_window', 'Outside the allowed weekdays'),
      );
    });
    it('counts Sunday as 7 and Saturday as 6', () => {
      expect(verdict({ days: [7] }, '2026-03-08T10:00:00Z')).toEqual(PASS);
      expect(verdict({ days: [1, 2, 3, 4, 5] }, '2026-03-08T10:00:00Z')).toMatchObject({ reason: 'outside_time_window' });
      expect(verdict({ days: [6] }, '2026-03-07T10:00:00Z')).toEqual(PASS);
      expect(verdict({ days: [7] }, '2026-03-07T10:00:00Z')).toMatchObject({ reason: 'outside_time_window' });
    });
  });

  describe('buckets', () => {
    const bounds = {
      buckets: [
        { period: 'minute' as const, max: 2 },
        { period: 'day' as const, max: 10 },
      ],
    };
    it('passes while every bucket has room for this grant', () => {
      expect(verdict(bounds, '2026-03-04T10:00:00Z', undefined, { minute: 1, day: 9 })).toEqual(PASS);
    });
    it('denies when any bucket of several is full, naming it', () => {
      expect(verdict(bounds, '2026-03-04T10:00:00Z', undefined, { minute: 2, day: 0 })).toEqual(
        denied('time_bucket_exhausted', 'At most 2 grants per minute'),
      );
      expect(verdict(bounds, '2026-03-04T10:00:00Z', undefined, { minute: 0, day: 10 })).toEqual(
        denied('time_bucket_exhausted', 'At most 10 grants per day'),
      );
    });
    it('reads each bucket by its own period', () => {
      expect(verdict({ buckets: [{ period: 'hour', max: 1 }] }, '2026-03-04T10:00:00Z', undefined, { minute: 5, hour: 0, day: 5 })).toEqual(
        PASS,
      );
    });
  });
});

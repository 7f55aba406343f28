import { MAX_ATTEMPTS, REFUSED_TARGET_ERROR, RETRY_WAITS_MS, retryWaitMs, verdictOf } from './retry-schedule';

describe('retry schedule (spec, Limits: waits 30 s, 2 m, 15 m, 1 h; 5 attempts)', () => {
  it('waits 30 s, 2 min, 15 min and 1 h after attempts 1 to 4', () => {
    expect(RETRY_WAITS_MS).toEqual([30_000, 120_000, 900_000, 3_600_000]);
    expect([1, 2, 3, 4].map(retryWaitMs)).toEqual([30_000, 120_000, 900_000, 3_600_000]);
    expect(MAX_ATTEMPTS).toBe(5);
  });

  it.each([200, 201, 204, 299])('acknowledges on %i', (status) => {
    expect(verdictOf({ statusCode: status }, 1)).toBe('succeeded');
    expect(verdictOf({ statusCode: status }, 5)).toBe('succeeded');
  });

  it.each([400, 401, 404, 409, 410, 422, 429, 499])('treats %i as permanent, never retried', (status) => {
    expect(verdictOf({ statusCode: status }, 1)).toBe('rejected');
  });

  it.each([
    ['a 500', { statusCode: 500 }],
    ['a 503', { statusCode: 503 }],
    ['a redirect (never followed)', { statusCode: 302 }],
    ['a timeout', { error: 'read_timeout' }],
    ['a network error', { error: 'connection_refused' }],
  ])('retries %s while attempts remain, then gives up on the fifth', (_case, result) => {
    for (const attempt of [1, 2, 3, 4]) expect(verdictOf(result, attempt)).toBe('retry');
    expect(verdictOf(result, 5)).toBe('exhausted');
  });

  it.each([100, 101, 199, 300, 301, 399])('never counts informational or redirect status %i as delivered: retried', (status) => {
    expect(verdictOf({ statusCode: status }, 1)).toBe('retry');
    expect(verdictOf({ statusCode: status }, 5)).toBe('exhausted');
  });

  it('counts the last attempt as exhausted and every earlier one as retryable, for any attempt budget', () => {
    expect(verdictOf({ statusCode: 500 }, 2, 3)).toBe('retry');
    expect(verdictOf({ statusCode: 500 }, 3, 3)).toBe('exhausted');
    expect(verdictOf({ statusCode: 500 }, 6)).toBe('exhausted');
  });

  it('keeps waiting 1 h after attempts beyond the fourth, and has no wait before the first', () => {
    expect(retryWaitMs(5)).toBe(3_600_000);
    expect(retryWaitMs(9)).toBe(3_600_000);
    expect(() => retryWaitMs(0)).toThrow(new RangeError('no retry wait after attempt 0'));
  });

  it('gives a single-attempt (test) delivery up after its only attempt', () => {
    expect(verdictOf({ statusCode: 500 }, 1, 1)).toBe('exhausted');
  });

  it('fails a delivery at once when its target address is refused (never retried, unlike other network errors)', () => {
    expect(verdictOf({ error: `${REFUSED_TARGET_ERROR}:loopback` }, 1)).toBe('rejected');
    expect(verdictOf({ error: `${REFUSED_TARGET_ERROR}:metadata` }, 1)).toBe('rejected');
    expect(verdictOf({ error: 'connection_refused' }, 1)).toBe('retry');
  });
});

import { FakeClock } from '@svc/config';
import { CAPABILITY_RATE_LIMIT, CAPABILITY_RATE_WINDOW_MS, IpRateLimiter } from './ip-rate-limiter';

describe('IpRateLimiter', () => {
  let clock: FakeClock;
  let limiter: IpRateLimiter;

  beforeEach(() => {
    clock = new FakeClock('2026-01-01T00:00:00.000Z');
    limiter = new IpRateLimiter(clock);
  });

  const hits = (ip: string, n: number) => Array.from({ length: n }, () => limiter.hit(ip));

  it('allows the limit per window opened by the first request, then answers the seconds left', () => {
    expect(hits('192.0.2.1', CAPABILITY_RATE_LIMIT).every((r) => r === undefined)).toBe(true);
    expect(limiter.hit('192.0.2.1')).toBe(60);
    // Another client has a window of its own.
    expect(limiter.hit('192.0.2.2')).toBeUndefined();
    clock.advance(20_500);
    expect(limiter.hit('192.0.2.1')).toBe(40);
    clock.advance(39_000);
    expect(limiter.hit('192.0.2.1')).toBe(1);
    clock.advance(500);
    expect(hits('192.0.2.1', CAPABILITY_RATE_LIMIT).every((r) => r === undefined)).toBe(true);
    expect(limiter.hit('192.0.2.1')).toBe(60);
  });

  it('keeps each window until its own end', () => {
    limiter.hit('192.0.2.9');
    clock.advance(CAPABILITY_RATE_WINDOW_MS - 1_000);
    expect(hits('192.0.2.1', CAPABILITY_RATE_LIMIT).every((r) => r === undefined)).toBe(true);
    clock.advance(1_000);
    expect(limiter.hit('192.0.2.1')).toBe(59);
    clock.advance(CAPABILITY_RATE_WINDOW_MS - 2_000);
    expect(limiter.hit('192.0.2.1')).toBe(1);
    clock.advance(1_000);
    expect(limiter.hit('192.0.2.1')).toBeUndefined();
    clock.advance(2 * CAPABILITY_RATE_WINDOW_MS);
    expect(hits('192.0.2.1', CAPABILITY_RATE_LIMIT).every((r) => r === undefined)).toBe(true);
    expect(limiter.hit('192.0.2.1')).toBe(60);
  });

  it('stays over the limit for the rest of the window however many requests come', () => {
    hits('192.0.2.1', 10 * CAPABILITY_RATE_LIMIT);
    clock.advance(30_000);
    expect(limiter.hit('192.0.2.1')).toBe(30);
  });
});

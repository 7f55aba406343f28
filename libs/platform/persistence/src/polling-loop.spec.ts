import { PollingLoop, type PollRound } from './polling-loop';

/** Time passes on jest's fake clock (Date.now included), so waits and backoffs are exact, not load-dependent. */
const sleep = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('polling loop', () => {
  let loop: PollingLoop | undefined;

  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(async () => {
    const stopping = loop?.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopping;
    loop = undefined;
    jest.useRealTimers();
  });

  it('runs again at once while rounds are busy, then waits the poll interval', async () => {
    const results: PollRound[] = ['busy', 'busy', 'idle'];
    let rounds = 0;
    loop = new PollingLoop({ round: () => Promise.resolve(results[rounds++] ?? 'idle'), pollMs: 10_000, onError: () => undefined });
    loop.start();
    await sleep(50);
    expect(rounds).toBe(3);
  });

  it('wakes early on a kick, including one that arrives during a round', async () => {
    let rounds = 0;
    let kickDuringRound = true;
    loop = new PollingLoop({
      round: () => {
        rounds += 1;
        if (kickDuringRound) {
          kickDuringRound = false;
          loop?.kick();
        }
        return Promise.resolve('idle');
      },
      pollMs: 10_000,
      onError: () => undefined,
    });
    loop.start();
    await sleep(30);
    expect(rounds).toBe(2);
    loop.kick();
    await sleep(30);
    expect(rounds).toBe(3);
  });

  it('backs off after failed rounds, doubling, and reports each failure', async () => {
    const times: number[] = [];
    const errors: unknown[] = [];
    loop = new PollingLoop({
      round: () => {
        times.push(Date.now());
        return Promise.reject(new Error('database down'));
      },
      pollMs: 1,
      onError: (error) => errors.push(error),
    });
    loop.start();
    await sleep(800);
    expect(times.length).toBe(3);
    expect(times[1]! - times[0]!).toBe(200);
    expect(times[2]! - times[1]!).toBe(400);
    expect(errors[0]).toEqual(new Error('database down'));
  });

  it('keeps the backoff through a saturated round and resets it after a successful one', async () => {
    const script: Array<PollRound | 'fail'> = ['fail', 'saturated', 'fail', 'idle', 'fail'];
    const times: number[] = [];
    loop = new PollingLoop({
      round: () => {
        times.push(Date.now());
        const next = script.shift() ?? 'idle';
        return next === 'fail' ? Promise.reject(new Error('x')) : Promise.resolve(next);
      },
      pollMs: 1,
      onError: () => undefined,
    });
    loop.start();
    await sleep(1_200);
    // fail (200) → saturated keeps 1 failure (200) → fail, 2 failures (400) → idle resets (1) → fail (200).
    const gaps = times.slice(1, 5).map((t, i) => t - times[i]!);
    expect(gaps).toEqual([200, 200, 400, 1]);
  });

  it('stops after the round under way and runs no more', async () => {
    let rounds = 0;
    let release: () => void = () => undefined;
    loop = new PollingLoop({
      round: async () => {
        rounds += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return 'busy';
      },
      pollMs: 1,
      onError: () => undefined,
    });
    loop.start();
    await sleep(10);
    const stopped = loop.stop();
    release();
    await stopped;
    await sleep(20);
    expect(rounds).toBe(1);
  });
});

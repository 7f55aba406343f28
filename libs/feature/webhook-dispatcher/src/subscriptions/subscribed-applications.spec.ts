import { SubscribedApplications } from './subscribed-applications';
import type { SubscriptionsRepository } from './subscriptions.repository';

/**
 * The intake's answer of which applications have an enabled subscription: read once per
 * application (the misses of a batch in one statement), and renewed at the commit of a
 * subscription created or enabled in this process — also when the intake's read was already on its
 * way to the database as the subscription committed.
 */
describe('subscribed applications (the intake’s cached answer)', () => {
  /** A stand-in for the table: reads answer what was committed when they started, released when the test says. */
  class Table {
    committed = new Set<string>();
    reads: string[][] = [];
    held: Array<() => void> = [];
    hold = false;
    applicationsWithEnabled = (applicationIds: readonly string[]): Promise<Set<string>> => {
      this.reads.push([...applicationIds]);
      const snapshot = new Set(applicationIds.filter((id) => this.committed.has(id)));
      if (!this.hold) return Promise.resolve(snapshot);
      return new Promise((resolve) => this.held.push(() => resolve(snapshot)));
    };
    /** Lets the oldest held read answer (once it has reached the table: reads of a batch start a tick later). */
    async release(): Promise<void> {
      await new Promise((resolve) => setImmediate(resolve));
      this.held.shift()!();
    }
    subscribe(applicationId: string): Promise<void> {
      this.committed.add(applicationId);
      return Promise.resolve();
    }
  }
  let table: Table;
  let subscribed: SubscribedApplications;

  beforeEach(() => {
    table = new Table();
    subscribed = new SubscribedApplications(table as unknown as SubscriptionsRepository);
  });

  it('answers every event of an application without subscription from one read', async () => {
    for (let i = 0; i < 100; i += 1) expect(await subscribed.subscribed('app_1')).toBe(false);
    expect(table.reads).toEqual([['app_1']]);
  });

  it('reads the applications of a batch it has no answer for in one statement, and only those', async () => {
    await table.subscribe('app_2');
    expect(await subscribed.subscribed('app_1')).toBe(false);
    expect([...(await subscribed.subscribedOf(['app_1', 'app_2', 'app_3', 'app_2']))]).toEqual(['app_2']);
    expect(table.reads).toEqual([['app_1'], ['app_2', 'app_3']]);
    expect([...(await subscribed.subscribedOf(['app_3', 'app_2', 'app_1']))]).toEqual(['app_2']);
    expect(await subscribed.subscribedOf([])).toEqual(new Set());
    expect(table.reads).toHaveLength(2);
  });

  it('a subscription created just now: the next event of its application is fanned out', async () => {
    expect(await subscribed.subscribed('app_1')).toBe(false);
    await subscribed.change(['app_1'], () => table.subscribe('app_1'));
    expect(await subscribed.subscribed('app_1')).toBe(true);
    expect(table.reads).toHaveLength(2);
  });

  it('a read that started before the subscription committed answers its own events only, not the next ones', async () => {
    table.hold = true;
    // An event received before the creation: its read takes its snapshot, then the subscription commits.
    const before = subscribed.subscribed('app_1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(table.reads).toHaveLength(1);
    await subscribed.change(['app_1'], () => table.subscribe('app_1'));
    await table.release();
    expect(await before).toBe(false);
    // The event written after the commit: a fresh read, which sees the subscription.
    const after = subscribed.subscribed('app_1');
    await table.release();
    expect(await after).toBe(true);
    table.hold = false;
    expect(await subscribed.subscribed('app_1')).toBe(true);
    expect(table.reads).toHaveLength(2);
  });

  it('events arriving while a subscription commits read the table themselves', async () => {
    await subscribed.subscribed('app_1');
    let commit!: () => void;
    const changing = subscribed.change(
      ['app_1'],
      () =>
        new Promise<void>((resolve) => {
          commit = () => void table.subscribe('app_1').then(resolve);
        }),
    );
    expect(await subscribed.subscribed('app_1')).toBe(false);
    commit();
    expect(await subscribed.subscribed('app_1')).toBe(true);
    await changing;
    expect(await subscribed.subscribed('app_1')).toBe(true);
    expect(table.reads).toHaveLength(4);
  });

  it('a failed read is not kept: the next event asks again', async () => {
    const failing = new SubscribedApplications({
      applicationsWithEnabled: jest
        .fn()
        .mockRejectedValueOnce(new Error('connection lost'))
        .mockResolvedValue(new Set(['app_1'])),
    } as unknown as SubscriptionsRepository);
    await expect(failing.subscribed('app_1')).rejects.toThrow('connection lost');
    expect(await failing.subscribed('app_1')).toBe(true);
  });

  it('another application keeps its answer', async () => {
    await subscribed.subscribed('app_1');
    await subscribed.subscribed('app_2');
    await subscribed.change(['app_1'], () => table.subscribe('app_1'));
    expect(await subscribed.subscribed('app_2')).toBe(false);
    expect(table.reads).toHaveLength(2);
  });

  it('answers a change once MAX_AGE_MS has passed since its commit, and at once when it has already', async () => {
    const committedAt = performance.now();
    await subscribed.settled(committedAt);
    // Never early: a timer that fires a little early is waited out.
    expect(performance.now() - committedAt).toBeGreaterThanOrEqual(SubscribedApplications.MAX_AGE_MS);
    const later = performance.now();
    await subscribed.settled(later - SubscribedApplications.MAX_AGE_MS);
    expect(performance.now() - later).toBeLessThan(50);
  });
});

/** Options of a {@link ReadCache}. */
export interface ReadCacheOptions {
  /** How long an answer is reused, in ms: the bound on staleness where no invalidation reaches the process. */
  maxAgeMs: number;
  /** Entries kept at most; beyond it the cache starts over. Default 10,000. */
  maxEntries?: number;
  /** Monotonic time in ms (tests pass their own). Default `performance.now`. */
  now?: () => number;
}

interface KeyState<V> {
  entry?: { value: V; loadedAt: number };
  /** The shared read in flight, if any, with the generation it started under. */
  load?: { generation: number; promise: Promise<V> };
  /** Bumped by every change of the key, so a read that started before a change is not kept. */
  generation: number;
  /** Changes of the key that may be committing now: while any is, every read goes to the database and nothing is kept. */
  changing: number;
}

/**
 * An in-memory read-through cache of answers read from the database, for a hot path that would
 * otherwise read the same rarely changing rows per request or event. Concurrent misses of one key
 * share one read. Invalidation at commit: a writer of the rows behind a key wraps its transaction
 * in {@link change}; from before the commit until after it every read of the key goes to the
 * database and none is kept, and a read that started before the commit is dropped when it
 * answers, so once the writer's commit is known to anyone nobody in this process is served the
 * answer from before it. Other processes learn of a change by an event ({@link invalidate}) or at
 * the latest after `maxAgeMs`.
 */
export class ReadCache<V> {
  private readonly keys = new Map<string, KeyState<V>>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: ReadCacheOptions) {
    this.maxAgeMs = options.maxAgeMs;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** The answer for `key`: a fresh cached one, else what `read` answers (kept unless the key changed meanwhile). */
  get(key: string, read: () => Promise<V>): Promise<V> {
    const state = this.keys.get(key);
    if (state?.changing) return read();
    if (state?.entry && this.now() - state.entry.loadedAt < this.maxAgeMs) return Promise.resolve(state.entry.value);
    if (state?.load && state.load.generation === state.generation) return state.load.promise;
    return this.startRead(key, state, read);
  }

  /**
   * Runs `work` (a transaction that changes the rows behind `keys`) as a change of those keys:
   * no answer is kept or served from the cache while it may be committing, and none read before
   * it is kept after it, whether it commits or fails.
   */
  async change<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const states = keys.map((key) => this.stateOf(key));
    for (const state of states) {
      state.changing += 1;
      this.forget(state);
    }
    try {
      return await work();
    } finally {
      for (const [i, state] of states.entries()) {
        state.changing -= 1;
        this.forget(state);
        this.drop(keys[i]!, state);
      }
    }
  }

  /** Forgets the answer for `key` (a change heard from another process); a read in flight is not kept. */
  invalidate(key: string): void {
    const state = this.keys.get(key);
    if (!state) return;
    this.forget(state);
    this.drop(key, state);
  }

  /** Forgets every answer. */
  clear(): void {
    for (const [key, state] of [...this.keys]) {
      this.forget(state);
      this.drop(key, state);
    }
  }

  private startRead(key: string, existing: KeyState<V> | undefined, read: () => Promise<V>): Promise<V> {
    const state = existing ?? this.stateOf(key);
    const generation = state.generation;
    const loadedAt = this.now();
    const promise = read().then(
      (value) => {
        if (state.load?.promise === promise) state.load = undefined;
        if (state.generation === generation && state.changing === 0 && this.keys.get(key) === state) state.entry = { value, loadedAt };
        else this.drop(key, state);
        return value;
      },
      (error: unknown) => {
        if (state.load?.promise === promise) state.load = undefined;
        this.drop(key, state);
        throw error;
      },
    );
    state.load = { generation, promise };
    return promise;
  }

  private stateOf(key: string): KeyState<V> {
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= this.maxEntries) this.evictIdle();
      state = { generation: 0, changing: 0 };
      this.keys.set(key, state);
    }
    return state;
  }

  /** The key's answer and shared read no longer count. */
  private forget(state: KeyState<V>): void {
    state.generation += 1;
    state.entry = undefined;
    state.load = undefined;
  }

  /** Removes a key's state once nothing refers to it any more. */
  private drop(key: string, state: KeyState<V>): void {
    if (!state.entry && !state.load && state.changing === 0 && this.keys.get(key) === state) this.keys.delete(key);
  }

  /** Over its size: keys with nothing in flight start over (a key being changed or read keeps its state). */
  private evictIdle(): void {
    for (const [key, state] of this.keys) if (!state.load && state.changing === 0) this.keys.delete(key);
  }
}

/**
 * Resolves once `ms` have passed since `since` (a `performance.now()` reading): how a writer waits
 * until every process's cached answer from before its commit has expired. A timer may fire up to
 * a millisecond early against `performance.now()`, so the time left is checked again after it.
 */
export async function untilElapsed(since: number, ms: number): Promise<void> {
  for (let remaining = since + ms - performance.now(); remaining > 0; remaining = since + ms - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(remaining)));
  }
}

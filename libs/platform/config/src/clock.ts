/** Source of the current time. Domain code asks a Clock, never `Date.now()`, so tests control time. */
export abstract class Clock {
  abstract now(): Date;
}

/** The wall clock. */
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock that moves only when told; for tests of expiry, retries and deadlines. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    super();
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date | string): void {
    this.current = new Date(date).getTime();
  }
}

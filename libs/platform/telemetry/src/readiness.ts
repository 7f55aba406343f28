/** Outcome of one readiness check; `detail` is shown on /readyz and must not carry secrets. */
export interface CheckResult {
  ok: boolean;
  detail?: Record<string, unknown>;
}

export interface ReadinessCheck {
  name: string;
  /** When false, a failing check is reported but does not make the process unready. */
  critical: boolean;
  check(): Promise<CheckResult>;
}

/** The checks behind /readyz; modules register theirs at init. */
export class Readiness {
  private readonly checks: ReadinessCheck[] = [];

  register(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  async evaluate(timeoutMs = 2_000): Promise<{ ready: boolean; checks: Record<string, CheckResult> }> {
    const results = await Promise.all(
      this.checks.map(async (c) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const result = await Promise.race([
            c.check(),
            new Promise<CheckResult>((resolve) => {
              timer = setTimeout(() => resolve({ ok: false, detail: { error: 'timeout' } }), timeoutMs);
            }),
          ]);
          return [c, result] as const;
        } catch (error) {
          return [c, { ok: false, detail: { error: error instanceof Error ? error.message : 'failed' } }] as const;
        } finally {
          // A pending timer would hold the process (and a test worker) open for up to timeoutMs after shutdown.
          clearTimeout(timer);
        }
      }),
    );
    const checks: Record<string, CheckResult> = {};
    let ready = true;
    for (const [c, result] of results) {
      checks[c.name] = result;
      if (c.critical && !result.ok) ready = false;
    }
    return { ready, checks };
  }
}

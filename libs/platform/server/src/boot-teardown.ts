/**
 * What a process's boot has acquired so far (database pool, bus connection), released in reverse
 * order when the boot fails before the application exists to close them itself.
 */
export class BootTeardown {
  private readonly steps: Array<{ name: string; release: () => unknown }> = [];

  /** Registers the release of something just acquired. */
  add(name: string, release: () => unknown): void {
    this.steps.push({ name, release });
  }

  /** Releases everything registered, newest first; one failed release does not stop the others. */
  async run(onError: (name: string, error: unknown) => void = () => undefined): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step.release();
      } catch (error) {
        onError(step.name, error);
      }
    }
  }
}

/**
 * This process's view of the external witness, for `/readyz` (non-critical check) and
 * `/metrics`. A witness that is down never blocks appends; it only shows here.
 */
export class WitnessHealth {
  /** False once a submission failed, until one succeeds. */
  ok = true;
  consecutiveFailures = 0;
  lastError?: string;
  lastSuccessAt?: Date;
  lastAttemptAt?: Date;

  /** A cosignature was verified and stored at `at`. */
  recordSuccess(at: Date): void {
    this.ok = true;
    this.consecutiveFailures = 0;
    this.lastError = undefined;
    this.lastSuccessAt = at;
    this.lastAttemptAt = at;
  }

  /** A submission failed at `at` (network, refusal or a cosignature that did not verify). */
  recordFailure(at: Date, error: string): void {
    this.ok = false;
    this.consecutiveFailures += 1;
    this.lastError = error;
    this.lastAttemptAt = at;
  }
}

/**
 * The region process a fault harness owns (see fault-harness.ts). It loads every module at once
 * and then waits: nothing connects to Postgres or NATS until the harness sends `start`, so the
 * harness keeps one loaded standby and a killed region is replaced in the time of a boot, without
 * the seconds of loading the code. The fault points armed for this process are in its environment
 * (`SVC_FAULT_POINTS`), read when the modules load.
 */
import { startRegion } from '@svc/region-stack';

/** The harness going away (a test run killed) takes its processes with it. */
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

process.on('message', (message: { start?: boolean }) => {
  if (!message.start) return;
  startRegion({ SERVICE_NAME: 'fault-harness', ...process.env }).then(
    () => process.send?.({ ready: true }),
    (error: unknown) => {
      process.stderr.write(`region boot failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
});

process.send?.({ loaded: true });

import type { Clock, Environment } from '@svc/config';
import { startProcess, type RunningProcess } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { ALL_FEATURES } from './features';

/** Monolithic mode: every service of one region in one process, still talking over NATS. */
export function startRegion(env: Environment, options: { clock?: Clock; logger?: Logger } = {}): Promise<RunningProcess> {
  return startProcess({ features: ALL_FEATURES, env, clock: options.clock, logger: options.logger });
}

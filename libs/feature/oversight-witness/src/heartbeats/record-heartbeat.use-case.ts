import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { TrustedAttester } from '../attesters/attester';
import { AttestersRepository } from '../attesters/attesters.repository';

/** What an engine reports with a heartbeat (all optional). */
export interface HeartbeatReport {
  status?: 'ok' | 'degraded';
  engineVersion?: string;
}

/**
 * Records that an attester's engine is alive (spec: heartbeat, permission
 * `attestations:heartbeat`). Only the latest heartbeat is kept: liveness is a state, not a log,
 * so heartbeats neither grow storage nor enter the audit chain.
 */
@Injectable()
export class RecordHeartbeat {
  constructor(
    private readonly attesters: AttestersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(attester: TrustedAttester, report: HeartbeatReport): Promise<TrustedAttester> {
    const now = this.clock.now();
    const heartbeat = { status: report.status ?? 'ok', engine_version: report.engineVersion ?? null };
    return this.attesters.transaction((manager) => this.attesters.recordHeartbeat(manager, attester.id, heartbeat, now));
  }
}

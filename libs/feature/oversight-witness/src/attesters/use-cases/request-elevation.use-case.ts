import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { oversightError } from '../../oversight.errors';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import type { AttesterPermission } from '../attester';
import { AttestersRepository, type ElevationRequest } from '../attesters.repository';
import { emitAttesterChanged, ownedAttester } from './owned-attester';

/**
 * Queues a rationale for an operator to add an operator-gated permission (`revocations:trigger`)
 * to an attester. Nothing changes until an operator grants it ({@link GrantElevation}).
 */
@Injectable()
export class RequestElevation {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, id: string, permission: AttesterPermission, rationale: string): Promise<ElevationRequest> {
    const now = this.clock.now();
    return this.attesters.transaction(async (manager) => {
      const attester = await ownedAttester(this.attesters, manager, applicationId, id, { live: true });
      if (attester.permissions.includes(permission)) {
        throw oversightError('permission_already_granted', `The attester already holds ${permission}`, { permission });
      }
      const request = await this.attesters.insertElevation(
        manager,
        { id: `elev_${randomUUID()}`, attesterId: id, applicationId, permission, rationale },
        now,
      );
      await emitAttesterChanged(this.outbox, manager, attester, 'elevation_requested', now);
      return request;
    });
  }
}

/**
 * Operator decision on a queued elevation request (there is no public operator API yet: this use
 * case is what an operator console or script calls). Granting adds the permission at once.
 */
@Injectable()
export class GrantElevation {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(requestId: string, operator: string, decision: 'granted' | 'rejected' = 'granted'): Promise<ElevationRequest> {
    const now = this.clock.now();
    return this.attesters.transaction(async (manager) => {
      const request = await this.attesters.findElevation(manager, requestId);
      if (!request) throw oversightError('elevation_request_not_found', 'Elevation request not found', { elevation_request_id: requestId });
      if (request.status !== 'pending')
        throw oversightError('elevation_request_not_pending', 'Elevation request was already decided', { status: request.status });
      const attester = await ownedAttester(this.attesters, manager, request.applicationId, request.attesterId, { live: true });
      const decided = await this.attesters.decideElevation(manager, requestId, decision, operator, now);
      if (decision === 'granted') {
        await this.attesters.addPermission(manager, attester.id, request.permission, now);
        await emitAttesterChanged(
          this.outbox,
          manager,
          { ...attester, permissions: [...attester.permissions, request.permission] },
          'elevation_granted',
          now,
        );
      }
      return decided;
    });
  }
}

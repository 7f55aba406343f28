import { Inject, Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Principal } from '@svc/auth';
import { authError } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId, type IdRegion } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { PeopleRepository } from '../people/people.repository';
import { GATEWAY_OUTBOX } from '../tokens';
import {
  PURPOSE_KINDS,
  complete,
  extend,
  initialDueAt,
  reject,
  start,
  type DataRequest,
  type DataRequestKind,
  type MoveOutcome,
  type Rectification,
} from './data-request';
import { dataRequestError } from './data-requests.errors';
import { DataRequestsRepository, type DataRequestOwner } from './data-requests.repository';
import { DataRequestFulfilment } from './use-cases/fulfil-data-request.use-case';

/** Event type of each change. */
type DataRequestEventType =
  'data_request.received' | 'data_request.in_progress' | 'data_request.extended' | 'data_request.completed' | 'data_request.rejected';

export interface NewDataRequest {
  kind: DataRequestKind;
  personId?: string;
  purposes?: string[];
  rectification?: Rectification;
}

/** Whose requests the caller sees: an API token its application's, a person's access token their own. */
export function ownerOf(principal: Principal): DataRequestOwner {
  if (principal.kind === 'access_token') {
    if (!principal.personId) throw authError('invalid_token', "This route needs a person's access token or an API token");
    return { personId: principal.personId };
  }
  return { applicationId: principal.applicationId };
}

/**
 * Data subject requests: raised by the signed-in person (their access token) or by the
 * application for a person it linked (API token); moved by the application; each change writes
 * its `data_request.*` event (webhook and audit entry) in the same transaction.
 */
@Injectable()
export class DataRequestsService {
  constructor(
    private readonly requests: DataRequestsRepository,
    private readonly people: PeopleRepository,
    private readonly fulfilment: DataRequestFulfilment,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
  ) {}

  async create(principal: Principal, input: NewDataRequest): Promise<DataRequest> {
    const personId = await this.requester(principal, input.personId);
    const purposes = input.purposes ?? [];
    if (PURPOSE_KINDS.includes(input.kind) !== purposes.length > 0) {
      throw dataRequestError(
        'data_request_purposes_invalid',
        `purposes is ${PURPOSE_KINDS.includes(input.kind) ? 'required' : 'refused'} for ${input.kind}`,
        { field: 'purposes' },
      );
    }
    const rectification = input.rectification
      ? {
          ...(input.rectification.displayName !== undefined ? { displayName: input.rectification.displayName } : {}),
          ...(input.rectification.email !== undefined ? { email: input.rectification.email.toLowerCase() } : {}),
        }
      : null;
    const wantsRectification = input.kind === 'rectification';
    if (wantsRectification !== (rectification !== null && Object.keys(rectification).length > 0)) {
      throw dataRequestError(
        'data_request_rectification_invalid',
        `rectification (display_name and/or email) is ${wantsRectification ? 'required' : 'refused'} for ${input.kind}`,
        { field: 'rectification' },
      );
    }
    const now = this.clock.now();
    const request: DataRequest = {
      id: newRegionalId('data_request', this.config.REGION as IdRegion),
      applicationId: principal.applicationId,
      personId,
      kind: input.kind,
      status: 'received',
      raisedBy: principal.kind === 'access_token' ? 'person' : 'application',
      purposes: [...new Set(purposes)],
      rectification,
      receivedAt: now,
      dueAt: initialDueAt(now),
      extendedAt: null,
      extensionReason: null,
      startedAt: null,
      completedAt: null,
      rejectedAt: null,
      rejectionReason: null,
      result: {},
      updatedAt: now,
    };
    await this.requests.transaction(async (manager) => {
      await this.requests.insert(manager, request);
      await this.addEvent(manager, 'data_request.received', request);
    });
    return request;
  }

  async read(principal: Principal, id: string): Promise<DataRequest> {
    const request = await this.requests.find(id, ownerOf(principal));
    if (!request) throw dataRequestError('data_request_not_found', 'Data request not found');
    return request;
  }

  extend(principal: Principal, id: string, days: number, reason: string): Promise<DataRequest> {
    return this.move(principal, id, 'data_request.extended', (r, now) => extend(r, days, reason, now));
  }

  start(principal: Principal, id: string): Promise<DataRequest> {
    return this.move(principal, id, 'data_request.in_progress', (r, now) => start(r, now));
  }

  reject(principal: Principal, id: string, reason: string): Promise<DataRequest> {
    return this.move(principal, id, 'data_request.rejected', (r, now) => reject(r, reason, now));
  }

  /** Fulfils the request (export, erasure, objection…) and completes it, in one transaction with its event. */
  async complete(principal: Principal, id: string): Promise<DataRequest> {
    const owner = ownerOf(principal);
    // Refuse a final request before doing any work.
    const current = await this.requests.find(id, owner);
    if (!current) throw dataRequestError('data_request_not_found', 'Data request not found');
    const early = complete(current, {}, this.clock.now());
    if ('refused' in early) this.refuse(early);
    const prepared = await this.fulfilment.prepare(current);
    return this.move(principal, id, 'data_request.completed', async (r, now, manager) =>
      complete(r, await this.fulfilment.commit(manager, r, prepared, now), now),
    );
  }

  private async move(
    principal: Principal,
    id: string,
    type: DataRequestEventType,
    apply: (r: DataRequest, now: Date, manager: EntityManager) => MoveOutcome | Promise<MoveOutcome>,
  ): Promise<DataRequest> {
    const owner = ownerOf(principal);
    return this.requests.transaction(async (manager) => {
      const request = await this.requests.find(id, owner, { manager, lock: true });
      if (!request) throw dataRequestError('data_request_not_found', 'Data request not found');
      const now = this.clock.now();
      const outcome = await apply(request, now, manager);
      if ('refused' in outcome) this.refuse(outcome);
      const moved = (outcome as { ok: DataRequest }).ok;
      await this.requests.save(manager, moved);
      await this.addEvent(manager, type, moved);
      return moved;
    });
  }

  private refuse(outcome: MoveOutcome): never {
    if (!('refused' in outcome)) throw new Error('not a refusal');
    const r = outcome.refused;
    switch (r.code) {
      case 'data_request_final':
        throw dataRequestError(r.code, `The request is already ${r.status}`, { status: r.status });
      case 'data_request_not_started':
        throw dataRequestError(r.code, `Only a received request is started; this one is ${r.status}`, { status: r.status });
      case 'data_request_already_extended':
        throw dataRequestError(r.code, 'The request was already extended once');
      case 'data_request_overdue':
        throw dataRequestError(r.code, 'The deadline has passed; an extension must be told within it', { due_at: r.dueAt.toISOString() });
      case 'data_request_extension_invalid':
        throw dataRequestError(r.code, `days must be 1-${r.maxDays}`, { field: 'days', max_days: r.maxDays });
    }
  }

  /** The person the request is about, proven by the credential: their own token, or the application's link to them. */
  private async requester(principal: Principal, personId: string | undefined): Promise<string> {
    if (principal.kind === 'access_token') {
      if (!principal.personId) throw authError('invalid_token', "This route needs a person's access token or an API token");
      if (personId !== undefined && personId !== principal.personId)
        throw dataRequestError('data_request_person_invalid', 'A person raises requests about themself only', { field: 'person_id' });
      return principal.personId;
    }
    if (personId === undefined)
      throw dataRequestError('data_request_person_invalid', 'person_id is required with an API token', { field: 'person_id' });
    const links = await this.people.listLinksOfPerson(personId);
    if (!links.some((l) => l.applicationId === principal.applicationId)) {
      throw dataRequestError('data_request_person_not_linked', 'The application has no link to this person', { field: 'person_id' });
    }
    return personId;
  }

  private async addEvent(manager: EntityManager, type: DataRequestEventType, r: DataRequest): Promise<void> {
    await this.outbox.add(
      manager,
      type,
      {
        dataRequestId: r.id,
        personId: r.personId,
        kind: r.kind,
        status: r.status,
        raisedBy: r.raisedBy,
        receivedAt: timestampFromDate(r.receivedAt),
        dueAt: timestampFromDate(r.dueAt),
        extended: r.extendedAt !== null,
        purposes: r.purposes,
        changedAt: timestampFromDate(r.updatedAt),
      },
      { applicationId: r.applicationId, occurredAt: r.updatedAt },
    );
  }
}

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DataRequest } from '../data-request';

/** What was gathered or done outside the request's transaction (other services' parts). */
export type PreparedFulfilment = Record<string, unknown>;

/**
 * Carries out a request when the application completes it. `prepare` runs before the completing
 * transaction (other services answer over the bus); `commit` writes decision-gateway's own part in
 * that transaction and returns the request's `result`.
 */
@Injectable()
export class DataRequestFulfilment {
  async prepare(_request: DataRequest): Promise<PreparedFulfilment> {
    return {};
  }

  async commit(_manager: EntityManager, _request: DataRequest, prepared: PreparedFulfilment, _now: Date): Promise<Record<string, unknown>> {
    return prepared;
  }
}

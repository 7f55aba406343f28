import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { sha256Hex } from '@svc/crypto';
import type { EntityManager } from 'typeorm';
import { PeopleRepository } from '../../people/people.repository';
import type { DataRequest } from '../data-request';
import { PersonDataRepository } from '../person-data.repository';
import { DataRequestExports, type ExportPart } from './data-request-exports';

/** What was gathered or done outside the request's transaction (other services' parts). */
export interface PreparedFulfilment {
  parts: ExportPart[];
  /** The person's references at the application, in clear (decision-gateway's own tables hold them). */
  references: string[];
  result: Record<string, unknown>;
}

type Subject = { applicationId: string; kind: string; valueSha256: string };

/**
 * Carries out a request when the application completes it. `prepare` runs before the completing
 * transaction: every other service of the home region answers for its part over request/reply
 * (`consent_records.person_data`, `oap.person_data`, `receipts.person_data`), with the person's
 * references as SHA-256 digests only. `commit` writes decision-gateway's own part in the completing
 * transaction and returns the request's `result`.
 */
@Injectable()
export class DataRequestFulfilment {
  constructor(
    private readonly people: PeopleRepository,
    private readonly personData: PersonDataRepository,
    private readonly exports: DataRequestExports,
    private readonly rpc: RpcClient,
  ) {}

  async prepare(request: DataRequest): Promise<PreparedFulfilment> {
    const links = (await this.people.listLinksOfPerson(request.personId)).filter((l) => l.applicationId === request.applicationId);
    const references = links.filter((l) => l.subjectKind === 'external_id').map((l) => l.subjectValue);
    const subjects: Subject[] = links.map((l) => ({
      applicationId: l.applicationId,
      kind: l.subjectKind,
      valueSha256: sha256Hex(l.subjectKind === 'email' ? l.subjectValue.trim().toLowerCase() : l.subjectValue),
    }));
    const ask = (action: string, extra: { recordIds?: string[]; authorityIds?: string[] } = {}) => ({
      applicationId: request.applicationId,
      personId: request.personId,
      subjects,
      action,
      purposes: request.purposes,
      recordIds: extra.recordIds ?? [],
      authorityIds: extra.authorityIds ?? [],
      dataRequestId: request.id,
    });
    switch (request.kind) {
      case 'access':
      case 'portability': {
        const records = await this.rpc.call('consent_records.person_data', ask('export'));
        const authorities = await this.rpc.call('oap.person_data', ask('export'));
        const receipts = await this.rpc.call(
          'receipts.person_data',
          ask('export', { recordIds: records.recordIds, authorityIds: authorities.authorityIds }),
        );
        const remote = [...records.parts, ...authorities.parts, ...receipts.parts].map((p) => ({
          name: p.name,
          items: JSON.parse(p.itemsJson) as unknown[],
        }));
        const local = await this.personData.export(request.applicationId, request.personId, references);
        return { parts: [...local, ...remote], references, result: {} };
      }
      case 'erasure': {
        // Each service deletes what it may and keeps what the law requires (ARCHITECTURE.md,
        // "Erasure: what remains"); receipts last, once the records naming the person are gone.
        const records = await this.rpc.call('consent_records.person_data', ask('erase'));
        const authorities = await this.rpc.call('oap.person_data', ask('erase'));
        const receipts = await this.rpc.call(
          'receipts.person_data',
          ask('erase', { recordIds: records.recordIds, authorityIds: authorities.authorityIds }),
        );
        return {
          parts: [],
          references,
          result: { erased: { consent_records: records.affected, authorities: authorities.affected, pseudonym_keys: receipts.affected } },
        };
      }
      case 'objection': {
        const objected = await this.rpc.call('consent_records.person_data', ask('object'));
        return { parts: [], references, result: { objection: { purposes: request.purposes, withdrawn: objected.affected } } };
      }
      case 'restriction': {
        const restricted = await this.rpc.call('consent_records.person_data', ask('restrict'));
        return { parts: [], references, result: { restriction: { purposes: request.purposes, restricted: restricted.affected } } };
      }
      case 'rectification':
        return { parts: [], references, result: {} };
    }
  }

  async commit(manager: EntityManager, request: DataRequest, prepared: PreparedFulfilment, now: Date): Promise<Record<string, unknown>> {
    switch (request.kind) {
      case 'access':
      case 'portability':
        return this.exports.store(manager, request, prepared.parts, now);
      case 'erasure': {
        const local = await this.personData.erase(manager, request.applicationId, request.personId, prepared.references);
        const erased = (prepared.result.erased ?? {}) as Record<string, number>;
        return { erased: { ...erased, ...local } };
      }
      case 'rectification':
        return { rectification: { fields: await this.personData.rectify(manager, request.personId, request.rectification ?? {}) } };
      case 'objection':
      case 'restriction':
        return prepared.result;
    }
  }
}

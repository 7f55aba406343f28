import { createHash } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { PrincipalPseudonyms } from './intake/principal-pseudonyms';

/**
 * `receipts.person_data` (decision-gateway, fulfilling a data subject request): the receipts of the
 * person's consent records and authorities at one application (the ids consent-records and
 * oap-authorizer found for the person).
 *
 * - `export`: each frozen receipt document with its appended transitions.
 * - `erase`: the person's pseudonym keys are destroyed (crypto-shredding, see `PrincipalPseudonyms`):
 *   the receipts stay, signed and verifiable, but their `pii_principal_id` can no longer be derived
 *   from any reference of the person, so they no longer resolve to them.
 */
@Controller()
export class PersonDataRpcHandlers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pseudonyms: PrincipalPseudonyms,
  ) {}

  @RpcHandler('receipts.person_data')
  async personData(request: RpcRequest<'receipts.person_data'>): Promise<RpcReplyInit<'receipts.person_data'>> {
    const ids = [...new Set([...request.recordIds, ...request.authorityIds])];
    if (request.action === 'erase') {
      const linked = request.subjects.filter((s) => s.applicationId === request.applicationId);
      // A record names the person by email or external id; an authority or approval by the
      // principal id the application gave (one of its references, or the person's usr_ id).
      const affected = await this.pseudonyms.shred(request.applicationId, [
        ...linked.map((s) => ({ kind: s.kind === 'email' ? ('email' as const) : ('external_id' as const), valueSha256: s.valueSha256 })),
        ...linked.filter((s) => s.kind === 'external_id').map((s) => ({ kind: 'principal' as const, valueSha256: s.valueSha256 })),
        { kind: 'principal' as const, valueSha256: createHash('sha256').update(request.personId, 'utf8').digest('hex') },
      ]);
      return { parts: [], recordIds: [], authorityIds: [], affected };
    }
    if (request.action !== 'export' || ids.length === 0) return { parts: [], recordIds: [], authorityIds: [], affected: 0 };
    const receipts: Array<{ record_id: string; record_type: string; document: string; document_sha256: string; frozen_at: Date }> =
      await queryRows(
        this.dataSource,
        `SELECT record_id, record_type, document, document_sha256, frozen_at FROM receipts.frozen_receipts WHERE application_id = $1 AND record_id = ANY($2) ORDER BY frozen_at, record_id`,
        [request.applicationId, ids],
      );
    const found = receipts.map((r) => r.record_id);
    const transitions: Array<{ record_id: string; transition_type: string; transition: string; occurred_at: Date }> =
      found.length === 0
        ? []
        : await queryRows(
            this.dataSource,
            `SELECT record_id, transition_type, transition, occurred_at FROM receipts.receipt_transitions WHERE record_id = ANY($1) ORDER BY seq`,
            [found],
          );
    const items = receipts.map((r) => ({
      record_id: r.record_id,
      record_type: r.record_type,
      document_sha256: r.document_sha256,
      frozen_at: r.frozen_at.toISOString(),
      document: JSON.parse(r.document) as unknown,
      transitions: transitions
        .filter((t) => t.record_id === r.record_id)
        .map((t) => ({
          type: t.transition_type,
          occurred_at: t.occurred_at.toISOString(),
          transition: JSON.parse(t.transition) as unknown,
        })),
    }));
    return { parts: [{ name: 'receipts/receipts', itemsJson: JSON.stringify(items) }], recordIds: [], authorityIds: [], affected: 0 };
  }
}

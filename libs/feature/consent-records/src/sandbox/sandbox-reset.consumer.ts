import { Controller, Inject } from '@nestjs/common';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { decodeEvent } from '@svc/contracts';
import { isIdOf } from '@svc/ids';
import { processOnce, queryRows } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource, type EntityManager } from 'typeorm';
import { CONSENT_RECORDS_SCHEMA } from '../schema';

const CONSUMER = 'consent-records-sandbox-reset';

/**
 * Deletes what consent-records keeps for a development (sandbox) application when decision-gateway
 * resets it (`application.sandbox_reset`): consent records recorded up to `reset_at` with their
 * heads, withdrawals, expiries, session evidence and form intakes; captures and imports created up
 * to then; the application's directory entries. Flows, policies, integrations and audiences stay.
 * A record an accepted data offer names stays (the offer is another application's evidence).
 * decision-gateway refuses to reset a production application, so a production id never arrives
 * here from it. Applied once per event (inbox, in the transaction of the deletes).
 */
@Controller()
export class SandboxResetConsumer {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @EventConsumer({ durable: CONSUMER, types: 'application.sandbox_reset' }, { maxDeliver: -1 })
  async handle(event: DeliveredEvent): Promise<boolean> {
    let applicationId: string;
    let resetAt: Date;
    try {
      const e = decodeEvent('application.sandbox_reset', event.data, this.bus.personalData);
      applicationId = e.applicationId;
      resetAt = new Date(e.resetAt);
    } catch (error) {
      this.logger.error(
        { eventId: event.id, err: error instanceof Error ? error.message : String(error) },
        'undecodable sandbox reset; nothing deleted',
      );
      return false;
    }
    if (!isIdOf('application', applicationId) || Number.isNaN(resetAt.getTime())) {
      this.logger.warn({ eventId: event.id, applicationId }, 'sandbox reset without a valid application or time; nothing deleted');
      return false;
    }
    let deleted = 0;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, CONSUMER, event.id, async (manager) => {
      deleted = await resetApplication(manager, applicationId, resetAt);
    });
    this.logger.info({ eventId: event.id, applicationId, recordsDeleted: deleted }, 'sandbox reset applied');
    return true;
  }
}

/** The deletes of one reset, children first; returns the number of consent records deleted. */
export async function resetApplication(manager: EntityManager, applicationId: string, resetAt: Date): Promise<number> {
  const params = [applicationId, resetAt];
  await manager.query(
    `CREATE TEMP TABLE sandbox_reset_records ON COMMIT DROP AS
     SELECT r.id FROM consent_records.records r
     WHERE r.application_id = $1 AND r.recorded_at <= $2
       AND NOT EXISTS (SELECT 1 FROM consent_records.data_offers o WHERE o.record_id = r.id)`,
    params,
  );
  const scope = 'SELECT id FROM sandbox_reset_records';
  await manager.query(`DELETE FROM consent_records.record_heads WHERE record_id IN (${scope})`);
  await manager.query(`DELETE FROM consent_records.withdrawals WHERE record_id IN (${scope})`);
  await manager.query(`DELETE FROM consent_records.record_expiries WHERE record_id IN (${scope})`);
  await manager.query(`DELETE FROM consent_records.session_record_evidence WHERE record_id IN (${scope})`);
  await manager.query(`DELETE FROM consent_records.form_intakes WHERE record_id IN (${scope})`);
  await manager.query(`UPDATE consent_records.import_rows SET record_id = NULL WHERE record_id IN (${scope})`);
  const records = await queryRows<{ id: string }>(manager, `DELETE FROM consent_records.records WHERE id IN (${scope}) RETURNING id`);
  await manager.query(`DELETE FROM consent_records.captures WHERE application_id = $1 AND created_at <= $2`, params);
  await manager.query(
    `DELETE FROM consent_records.import_rows WHERE import_id IN (SELECT id FROM consent_records.imports WHERE application_id = $1 AND created_at <= $2)`,
    params,
  );
  await manager.query(`DELETE FROM consent_records.imports WHERE application_id = $1 AND created_at <= $2`, params);
  await manager.query(`DELETE FROM consent_records.directory_entries WHERE application_id = $1`, [applicationId]);
  return records.length;
}

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { BatchRecordWriter } from './batch-record-writer';
import type { RecordDraft, WriteOutcome } from './record-write';

export { requestDigest, type RecordDraft, type WriteOutcome } from './record-write';

/**
 * Writes one consent record inside the caller's transaction (capture commits, single retries):
 * a batch of one through BatchRecordWriter, which holds the only copy of the rules
 * (idempotency, the later-record rule, head pointers, events). A refusal is thrown.
 */
@Injectable()
export class RecordWriter {
  constructor(private readonly batch: BatchRecordWriter) {}

  async write(manager: EntityManager, draft: RecordDraft, recordedAt: Date): Promise<WriteOutcome> {
    const [result] = await this.batch.writeMany(manager, [draft], recordedAt);
    if (!result!.ok) throw result!.error;
    return result!.outcome;
  }
}

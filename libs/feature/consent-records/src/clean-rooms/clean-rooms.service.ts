import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { isIdOf, newRegionalId, parseId, type IdRegion } from '@svc/ids';
import { consentRecordsError } from '../consent-records.errors';
import { CleanRoomsRepository, type CleanRoom, type CleanRoomComparison } from './clean-rooms.repository';
import { suppress } from './suppression';

/**
 * Clean rooms: two applications of the region compare their consented audiences, counts only.
 * The initiator proposes (its purpose, the minimum cohort); the partner accepts with its own
 * purpose, or declines; only then may either party compare. Each audience is the people whose
 * current consent covers that party's purpose; the counts are computed in one SQL statement and
 * suppressed below the minimum cohort, so no row, identifier or email leaves. Every step and
 * every comparison is an audit chain entry (`audit.append_entry`), written before its row.
 */
@Injectable()
export class CleanRooms {
  constructor(
    readonly repository: CleanRoomsRepository,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async propose(
    applicationId: string,
    input: { name: string; partnerApplicationId: string; purpose: string; minCohortSize: number },
  ): Promise<CleanRoom> {
    const partner = input.partnerApplicationId;
    if (!isIdOf('application', partner) || parseId(partner)?.region !== this.config.REGION || partner === applicationId) {
      throw consentRecordsError('clean_room_partner_invalid', 'The partner is another application of this region', {
        field: 'partner_application_id',
      });
    }
    const found = await this.rpc.call('gateway.get_application', { applicationId: partner });
    if (!found.found)
      throw consentRecordsError('clean_room_partner_invalid', 'No such application in this region', { field: 'partner_application_id' });
    await this.checkPurpose(applicationId, input.purpose);
    const id = newRegionalId('clean_room', this.config.REGION as IdRegion);
    const now = this.clock.now();
    const entry = await this.audit(
      'clean_room.proposed',
      applicationId,
      id,
      {
        initiator_application_id: applicationId,
        partner_application_id: partner,
        initiator_purpose: input.purpose,
        min_cohort_size: input.minCohortSize,
      },
      now,
    );
    return this.repository.insert({
      id,
      name: input.name,
      initiatorApplicationId: applicationId,
      partnerApplicationId: partner,
      initiatorPurpose: input.purpose,
      minCohortSize: input.minCohortSize,
      auditEntryIds: [entry],
      createdAt: now,
    });
  }

  /** The partner accepts with the purpose its audience is drawn from. */
  async accept(applicationId: string, id: string, purpose: string): Promise<CleanRoom> {
    const room = await this.pendingForPartner(applicationId, id);
    await this.checkPurpose(applicationId, purpose);
    const now = this.clock.now();
    const entry = await this.audit('clean_room.accepted', applicationId, id, { partner_purpose: purpose }, now);
    return this.repository.transaction(async (manager) => {
      const locked = await this.repository.find(applicationId, room.id, manager, true);
      if (locked?.status !== 'proposed')
        throw consentRecordsError('clean_room_state_invalid', `The clean room is ${locked?.status ?? 'gone'}`, { status: locked?.status });
      return this.repository.decide(manager, id, 'active', purpose, entry, now);
    });
  }

  async decline(applicationId: string, id: string): Promise<CleanRoom> {
    await this.pendingForPartner(applicationId, id);
    const now = this.clock.now();
    const entry = await this.audit('clean_room.declined', applicationId, id, {}, now);
    return this.repository.transaction(async (manager) => {
      const locked = await this.repository.find(applicationId, id, manager, true);
      if (locked?.status !== 'proposed')
        throw consentRecordsError('clean_room_state_invalid', `The clean room is ${locked?.status ?? 'gone'}`, { status: locked?.status });
      return this.repository.decide(manager, id, 'declined', null, entry, now);
    });
  }

  /** Either party compares an active room: counts only, small cells suppressed, audited. */
  async compare(applicationId: string, id: string): Promise<CleanRoomComparison> {
    const room = await this.room(applicationId, id);
    if (room.status !== 'active')
      throw consentRecordsError('clean_room_state_invalid', 'Both applications must accept before a comparison', { status: room.status });
    const now = this.clock.now();
    const result = suppress(await this.repository.count(room, now), room.minCohortSize);
    const entry = await this.audit(
      'clean_room.compared',
      applicationId,
      id,
      { requested_by: applicationId, counts: result.counts, suppressed: result.suppressed, min_cohort_size: room.minCohortSize },
      now,
    );
    return this.repository.insertComparison({
      cleanRoomId: id,
      requestedBy: applicationId,
      counts: result.counts,
      suppressed: result.suppressed,
      auditEntryId: entry,
      computedAt: now,
    });
  }

  async room(applicationId: string, id: string): Promise<CleanRoom> {
    const room = isIdOf('clean_room', id) ? await this.repository.find(applicationId, id) : undefined;
    if (!room) throw consentRecordsError('clean_room_not_found', 'Clean room not found', { clean_room_id: id });
    return room;
  }

  private async pendingForPartner(applicationId: string, id: string): Promise<CleanRoom> {
    const room = await this.room(applicationId, id);
    if (room.partnerApplicationId !== applicationId)
      throw consentRecordsError('clean_room_forbidden', 'Only the partner application accepts or declines', { clean_room_id: id });
    if (room.status !== 'proposed')
      throw consentRecordsError('clean_room_state_invalid', `The clean room is ${room.status}`, { status: room.status });
    return room;
  }

  private async checkPurpose(applicationId: string, purpose: string): Promise<void> {
    if (!(await this.repository.isConsentPurpose(applicationId, purpose))) {
      throw consentRecordsError(
        'clean_room_purpose_invalid',
        "purpose must be a consent purpose of one of the application's active flows",
        { field: 'purpose' },
      );
    }
  }

  private async audit(type: string, applicationId: string, roomId: string, data: Record<string, unknown>, at: Date): Promise<string> {
    const entry = await this.rpc.call('audit.append_entry', {
      type,
      applicationId,
      sourceEventId: `${type}:${roomId}:${at.getTime()}:${applicationId}`,
      dataJson: canonicalJson({ clean_room_id: roomId, at: at.toISOString(), ...data }),
    });
    return entry.id;
  }
}

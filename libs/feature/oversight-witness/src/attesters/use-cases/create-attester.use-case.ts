import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import { DEFAULT_PERMISSIONS, attesterTokenDigest, newAttesterToken, type AttesterPermission, type TrustedAttester } from '../attester';
import { AttestersRepository } from '../attesters.repository';
import { emitAttesterChanged } from './owned-attester';

/** What creating an attester needs; permissions are already limited to the self-service set by the DTO. */
export interface CreateAttesterCommand {
  applicationId: string;
  name: string;
  permissions?: readonly AttesterPermission[];
  /** Scope the attester to the creating application (the only one it may attest for either way). */
  scopedToApplication: boolean;
}

/** Creates a trusted attester; its token is returned here only and stored as its SHA-256 digest. */
@Injectable()
export class CreateAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(command: CreateAttesterCommand): Promise<{ attester: TrustedAttester; token: string }> {
    const now = this.clock.now();
    const token = newAttesterToken(this.config.REGION);
    const permissions = [...new Set(command.permissions ?? DEFAULT_PERMISSIONS)];
    const attester = await this.attesters.transaction(async (manager) => {
      const created = await this.attesters.insert(
        manager,
        {
          id: newRegionalId('trusted_attester', this.config.REGION),
          applicationId: command.applicationId,
          name: command.name,
          permissions,
          scopeApplicationId: command.scopedToApplication ? command.applicationId : null,
          tokenDigest: attesterTokenDigest(token),
        },
        now,
      );
      await emitAttesterChanged(this.outbox, manager, created, 'created', now);
      return created;
    });
    return { attester, token };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { OAP_OUTBOX } from '../../tokens';
import type { CapabilityScope, CapabilityVersion } from '../agent';
import { AgentsRepository } from '../agents.repository';
import { CapabilityDocuments } from '../capability-documents';
import { ownedAgent } from './owned-agent';

/**
 * Publishes a new capability manifest version (`tpcv_<region>_…`) for an agent. Versions are
 * immutable; the newest becomes current. Its SHA-256 is the drift reference of cascade step 15.
 */
@Injectable()
export class PublishCapabilities {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    private readonly documents: CapabilityDocuments,
  ) {}

  async execute(
    principal: Principal,
    agentId: string,
    manifest: { scopes: CapabilityScope[]; actions: string[] },
  ): Promise<CapabilityVersion> {
    await ownedAgent(this.agents, principal, agentId);
    const scopes = [...manifest.scopes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const actions = [...new Set(manifest.actions)].sort();
    const manifestJson = canonicalJson({ scopes, actions });
    const version: CapabilityVersion = {
      versionId: newRegionalId('capability_version', this.config.REGION),
      agentId,
      scopes,
      actions,
      manifestSha256: sha256Hex(manifestJson),
      publishedAt: this.clock.now(),
    };
    await this.agents.transaction(async (manager) => {
      await this.agents.insertVersion(manager, version, manifestJson);
      await this.outbox.add(
        manager,
        'oap.capabilities_published',
        { agentId, versionId: version.versionId, manifestSha256: version.manifestSha256 },
        { applicationId: principal.applicationId, occurredAt: version.publishedAt },
      );
    });
    // This process's cached document goes at once; the others' on the event's fan-out.
    this.documents.agentChanged(agentId);
    return version;
  }
}

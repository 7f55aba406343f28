import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { ApplicationFactsReader } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { newApprovalSessionToken, newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { AgentsRepository } from '../../agents/agents.repository';
import { ownedAgent } from '../../agents/use-cases/owned-agent';
import { OAP_OUTBOX } from '../../tokens';
import type { Authority } from '../authority';
import { boundDefect } from '../bound-shape';
import { BOUND_KEYS, type AuthorityBounds } from '../bounds';
import { AuthoritiesRepository } from '../authorities.repository';
import { emitAuthorityEvent } from './authority-event';

/** A validated request to create an authority; cannot be built with an inverted window. */
export class CreateAuthorityCommand {
  private constructor(
    readonly agentId: string,
    /** Null for a proposal: the person who grants it becomes the principal. */
    readonly principalId: string | null,
    readonly bounds: AuthorityBounds,
    readonly purposes: string[],
    readonly validFrom: Date | undefined,
    readonly validUntil: Date,
    readonly coolingOffSeconds: number,
  ) {}

  static create(input: {
    agentId: string;
    principalId: string | null;
    bounds: AuthorityBounds;
    purposes?: string[];
    validFrom?: string;
    validUntil: string;
    coolingOffSeconds?: number;
  }): CreateAuthorityCommand {
    const validFrom = input.validFrom === undefined ? undefined : new Date(input.validFrom);
    const validUntil = new Date(input.validUntil);
    if (validFrom && validUntil <= validFrom) {
      throw new DomainError('unprocessable', 'validation_failed', 'valid_until must be after valid_from', { field: 'valid_until' });
    }
    for (const key of BOUND_KEYS) {
      const defect = input.bounds[key] === undefined ? undefined : boundDefect(key, input.bounds[key]);
      if (defect)
        throw new DomainError('unprocessable', 'validation_failed', defect.message, { field: defect.field, fields: [defect.field] });
    }
    const escalation = input.bounds.escalation_bounds;
    if (
      escalation?.quorum_type === 'threshold' &&
      (escalation.threshold === undefined || escalation.threshold > escalation.approvers.length)
    ) {
      throw new DomainError(
        'unprocessable',
        'validation_failed',
        'threshold quorum needs a threshold no greater than the number of approvers',
        { field: 'escalation_bounds.threshold' },
      );
    }
    const value = input.bounds.value_bounds;
    if (value && !value.unrestricted && value.currency === undefined) {
      throw new DomainError('unprocessable', 'validation_failed', 'value_bounds needs a currency', { field: 'value_bounds.currency' });
    }
    const bounds: AuthorityBounds = {};
    for (const key of BOUND_KEYS) if (input.bounds[key] !== undefined) (bounds as Record<string, unknown>)[key] = input.bounds[key];
    return new CreateAuthorityCommand(
      input.agentId,
      input.principalId,
      bounds,
      input.purposes ?? [],
      validFrom,
      validUntil,
      input.coolingOffSeconds ?? 0,
    );
  }
}

/** Creates an authority (status active) and emits `authority.created` (with the agent's name and the withdrawal URL). */
@Injectable()
export class CreateAuthority {
  constructor(
    private readonly authorities: AuthoritiesRepository,
    private readonly agents: AgentsRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    private readonly applications: ApplicationFactsReader,
  ) {}

  async execute(principal: Principal, command: CreateAuthorityCommand): Promise<Authority> {
    if (command.principalId === null) throw new Error('an authority without a principal is proposed, not created');
    return this.insert(principal, command, 'active', null);
  }

  /**
   * Stores the authority as `proposed` with no principal and the digest of the proposal page's
   * token; nothing is emitted until the person grants it. Returns the page's URL once.
   */
  async propose(principal: Principal, command: CreateAuthorityCommand): Promise<{ authority: Authority; proposalUrl: string }> {
    const token = newApprovalSessionToken();
    const authority = await this.insert(principal, command, 'proposed', sha256Hex(token));
    return { authority, proposalUrl: `${this.config.publicBaseUrl}/authorities/${token}` };
  }

  private async insert(
    principal: Principal,
    command: CreateAuthorityCommand,
    status: 'active' | 'proposed',
    proposalTokenSha256: string | null,
  ): Promise<Authority> {
    const agent = await ownedAgent(this.agents, principal, command.agentId);
    const now = this.clock.now();
    const validFrom = command.validFrom ?? now;
    if (command.validUntil <= validFrom) {
      throw new DomainError('unprocessable', 'validation_failed', 'valid_until must be after valid_from', { field: 'valid_until' });
    }
    const manifest = await this.agents.currentVersion(command.agentId);
    // Stamped on authority.created for the receipt (a proposal is stamped when the person grants it).
    const application = status === 'active' ? await this.applications.of(principal.applicationId) : undefined;
    return this.authorities.transaction(async (manager) => {
      const authority = await this.authorities.insert(
        manager,
        {
          id: newRegionalId('authority', this.config.REGION),
          applicationId: principal.applicationId,
          agentId: command.agentId,
          principalId: command.principalId,
          status,
          boundsJson: canonicalJson(command.bounds as Record<string, unknown>),
          purposes: command.purposes,
          validFrom,
          validUntil: command.validUntil,
          coolingOffSeconds: command.coolingOffSeconds,
          manifestSha256: manifest?.manifestSha256 ?? null,
          createdAt: now,
        },
        proposalTokenSha256,
      );
      if (status === 'proposed') return authority;
      await emitAuthorityEvent(this.outbox, manager, 'authority.created', authority, now, '', {
        agentName: agent.name,
        withdrawalUrl: `${this.config.publicBaseUrl}/api/v1/authorities/${authority.id}/revoke`,
        application,
      });
      return authority;
    });
  }
}

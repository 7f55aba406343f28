import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig, regionCountries } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { newRegionalId, type IdRegion } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import { gatewayError } from '../gateway.errors';
import { ComplyRepository } from './comply.repository';
import {
  ACTOR_ID,
  actorOf,
  CHANGE_REQUEST_TTL_MS,
  GOVERNED_ACTIONS,
  MAX_ROLE_ACTORS,
  mayAct,
  type ChangeRequest,
  type ChangeRequestStep,
  type GovernancePolicy,
  type GovernedAction,
} from './governance';
import { jurisdictionOf, REGIME_DEFINITIONS, REGIMES, type ComplianceModule, type ModuleSettings, type Regime } from './regimes';
import { checkFlowAgainstModules } from './rules/check-flow';
import { isDuration, durationDays } from './rules/duration';
import type { FlowTermsUnderCheck } from './rules/rule';

/** A module change as asked (`PUT /api/v1/modules/:regime`). */
export interface ModuleChange {
  enabled: boolean;
  minimum_age?: number;
  retention_ceiling?: string;
  sensitive_purposes?: string[];
}

/** A policy change as asked (`PUT /api/v1/governance`). */
export interface PolicyChange {
  roles: Partial<Record<GovernedAction, string[] | null>>;
  four_eyes: GovernedAction[];
}

/** What a governed change did: applied at once, or waiting for its second approver. */
export type Submitted<T> =
  { readonly outcome: 'applied'; readonly result: T } | { readonly outcome: 'pending'; readonly request: ChangeRequest };

/** How long an approved key rotation, once begun, covers the rotation's further token changes. */
export const ROTATION_WINDOW_MS = 15 * 60_000;

const PURPOSE_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * The Comply surface of an application: its regime modules, its governance policy and the
 * four-eyes change requests. Every governed change is checked against the policy (the actor's
 * role; a second, different approver when the action is under four-eyes) and every step is
 * appended to the audit chain (`audit.append_entry`) before the row that it records is written,
 * so no change exists without its audit entry.
 */
@Injectable()
export class ComplyService {
  private readonly country: string;

  constructor(
    readonly repository: ComplyRepository,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {
    this.country = regionCountries(config)[config.REGION];
  }

  modules(applicationId: string): Promise<ComplianceModule[]> {
    return this.repository.modules(applicationId);
  }

  /** The receipt jurisdiction of the application's enabled modules (see {@link jurisdictionOf}). */
  async jurisdiction(applicationId: string, manager?: EntityManager): Promise<string> {
    const enabled = (await this.repository.modules(applicationId, manager))
      .filter((module) => module.enabled)
      .map((module) => module.regime);
    return jurisdictionOf(enabled, this.country);
  }

  policy(applicationId: string): Promise<GovernancePolicy> {
    return this.repository.policy(applicationId);
  }

  // ---- governed changes ----

  async changeModule(principal: Principal, regime: string, change: ModuleChange, reason?: string): Promise<Submitted<ComplianceModule>> {
    const known = this.regime(regime);
    const settings = this.checkModuleChange(known, change);
    const submitted = await this.submit(principal, 'change_modules', known, { enabled: change.enabled, ...settings }, reason);
    if (submitted.outcome === 'pending') return submitted;
    return { outcome: 'applied', result: await this.moduleOf(principal.applicationId, known) };
  }

  async changePolicy(principal: Principal, change: PolicyChange, reason?: string): Promise<Submitted<GovernancePolicy>> {
    const policy = await this.checkPolicyChange(principal.applicationId, change);
    const submitted = await this.submit(principal, 'change_governance', 'policy', policy as unknown as Record<string, unknown>, reason);
    if (submitted.outcome === 'pending') return submitted;
    return { outcome: 'applied', result: await this.repository.policy(principal.applicationId) };
  }

  /**
   * Asks for an approval ahead of an act that is carried out elsewhere: activating a flow version
   * (`activate_flows`, target the flow id, `changes.version`) or rotating API tokens
   * (`rotate_keys`, target `api_tokens`). Module and policy changes are asked through their own
   * routes, which open the request themselves when four-eyes applies.
   */
  async requestApproval(
    principal: Principal,
    action: GovernedAction,
    target: string,
    changes: Record<string, unknown>,
    reason?: string,
  ): Promise<ChangeRequest> {
    if (action === 'change_modules' || action === 'change_governance') {
      throw gatewayError(
        'change_request_invalid',
        `${action} is asked with ${action === 'change_modules' ? 'PUT /api/v1/modules/{regime}' : 'PUT /api/v1/governance'}`,
        { field: 'action' },
      );
    }
    if (action === 'activate_flows' && !/^flw_[a-z]{2,3}_[a-z2-7]{20}$/.test(target))
      throw gatewayError('change_request_invalid', 'target must be the flow id to activate', { field: 'target' });
    if (action === 'rotate_keys' && target !== 'api_tokens')
      throw gatewayError('change_request_invalid', 'target of rotate_keys is api_tokens', { field: 'target' });
    const actor = this.actor(principal);
    const policy = await this.repository.policy(principal.applicationId);
    if (!mayAct(policy, action, actor))
      throw gatewayError('governance_forbidden', `This credential may not ${action.replace('_', ' ')}`, { action, field: 'action' });
    return this.open(principal.applicationId, actor, action, target, changes, reason);
  }

  /**
   * The second pair of eyes: a different actor holding the action's role approves. A module or
   * policy change is applied at once (`applied`); an activation or rotation becomes `approved`
   * and is `applied` when it is carried out.
   */
  async approve(principal: Principal, id: string): Promise<ChangeRequest> {
    const actor = this.actor(principal);
    const now = this.clock.now();
    const request = await this.pendingRequest(principal.applicationId, id, now);
    if (request.requestedBy === actor)
      throw gatewayError('four_eyes_same_actor', 'A change needs a second, different approver', {
        change_request_id: id,
        requested_by: request.requestedBy,
      });
    const policy = await this.repository.policy(principal.applicationId);
    if (!mayAct(policy, request.action, actor))
      throw gatewayError('governance_forbidden', `This credential may not approve ${request.action}`, { action: request.action });
    const approved = await this.audit(principal.applicationId, request, 'approved', actor, now);
    const applies = request.action === 'change_modules' || request.action === 'change_governance';
    const appliedStep = applies ? await this.audit(principal.applicationId, request, 'applied', actor, now) : undefined;
    return this.repository.transaction(async (manager) => {
      const locked = await this.repository.findRequest(principal.applicationId, id, manager, true);
      if (locked?.status !== 'pending')
        throw gatewayError('change_request_not_pending', `The change request is ${locked?.status ?? 'gone'}`, {
          change_request_id: id,
          status: locked?.status,
        });
      if (!applies)
        return this.repository.updateRequest(manager, id, {
          status: 'approved',
          decidedBy: actor,
          decidedAt: now,
          steps: [...locked.steps, approved],
        });
      await this.apply(manager, locked, appliedStep!.audit_entry_id, now);
      return this.repository.updateRequest(manager, id, {
        status: 'applied',
        decidedBy: actor,
        decidedAt: now,
        appliedAt: now,
        steps: [...locked.steps, approved, appliedStep!],
      });
    });
  }

  /** Declines a pending request: any holder of the action's role, or the requester withdrawing it. */
  async reject(principal: Principal, id: string): Promise<ChangeRequest> {
    const actor = this.actor(principal);
    const now = this.clock.now();
    const request = await this.pendingRequest(principal.applicationId, id, now);
    const policy = await this.repository.policy(principal.applicationId);
    if (request.requestedBy !== actor && !mayAct(policy, request.action, actor))
      throw gatewayError('governance_forbidden', `This credential may not decide ${request.action}`, { action: request.action });
    const step = await this.audit(principal.applicationId, request, 'rejected', actor, now);
    return this.repository.transaction(async (manager) => {
      const locked = await this.repository.findRequest(principal.applicationId, id, manager, true);
      if (locked?.status !== 'pending')
        throw gatewayError('change_request_not_pending', `The change request is ${locked?.status ?? 'gone'}`, {
          change_request_id: id,
          status: locked?.status,
        });
      return this.repository.updateRequest(manager, id, {
        status: 'rejected',
        decidedBy: actor,
        decidedAt: now,
        steps: [...locked.steps, step],
      });
    });
  }

  /**
   * Before consent-records activates a flow version: the actor's role, the enabled modules' rules,
   * then (under four-eyes) the approved request it carries out, which becomes `applied`.
   * @throws DomainError `governance_forbidden` (403), `module_rule_violated` (422: the first
   *   violation's regime, rule and field, and every violation), `approval_required` (409).
   */
  async checkFlowActivation(
    applicationId: string,
    actor: string,
    flowId: string,
    version: number,
    terms: FlowTermsUnderCheck,
  ): Promise<{ regimes: Regime[]; changeRequestId: string | null }> {
    const policy = await this.repository.policy(applicationId);
    if (!ACTOR_ID.test(actor) || !mayAct(policy, 'activate_flows', actor))
      throw gatewayError('governance_forbidden', 'This credential may not activate flows', { action: 'activate_flows' });
    const modules = (await this.repository.modules(applicationId)).filter((module) => module.enabled);
    const violations = checkFlowAgainstModules(terms, modules);
    const first = violations[0];
    if (first) {
      throw gatewayError('module_rule_violated', `${REGIME_DEFINITIONS[first.regime].name}: ${first.message} (${first.citation})`, {
        field: first.field,
        regime: first.regime,
        rule: first.rule,
        violations: violations.map((v) => ({ regime: v.regime, rule: v.rule, field: v.field, message: v.message, citation: v.citation })),
      });
    }
    const regimes = modules.map((module) => module.regime);
    if (!policy.four_eyes.includes('activate_flows')) return { regimes, changeRequestId: null };
    const changeRequestId = await this.carryOut(
      applicationId,
      actor,
      'activate_flows',
      flowId,
      (request) => request.changes.version === version,
    );
    return { regimes, changeRequestId };
  }

  /**
   * Before an API token is issued or revoked: the actor's `rotate_keys` role and, under
   * four-eyes, an approved request to carry out (it becomes `applied`). A rotation is an issue and
   * a revocation, so an approval carried out covers the application's token changes for
   * {@link ROTATION_WINDOW_MS} after its first use.
   */
  async authorizeKeyRotation(principal: Principal): Promise<void> {
    const actor = this.actor(principal);
    const policy = await this.repository.policy(principal.applicationId);
    if (!mayAct(policy, 'rotate_keys', actor))
      throw gatewayError('governance_forbidden', 'This credential may not rotate keys', { action: 'rotate_keys' });
    if (!policy.four_eyes.includes('rotate_keys')) return;
    const since = new Date(this.clock.now().getTime() - ROTATION_WINDOW_MS);
    if (await this.repository.appliedSince(principal.applicationId, 'rotate_keys', 'api_tokens', since)) return;
    await this.carryOut(principal.applicationId, actor, 'rotate_keys', 'api_tokens', () => true);
  }

  async listRequests(
    applicationId: string,
    filter: { status?: ChangeRequest['status']; action?: GovernedAction },
    limit: number,
    afterSeq: number,
  ): Promise<ChangeRequest[]> {
    return this.repository.listRequests(applicationId, filter, limit, afterSeq);
  }

  async request(applicationId: string, id: string): Promise<ChangeRequest> {
    const found = await this.repository.findRequest(applicationId, id);
    if (!found) throw gatewayError('change_request_not_found', 'Change request not found', { change_request_id: id });
    return found;
  }

  // ---- internals ----

  private async submit(
    principal: Principal,
    action: GovernedAction,
    target: string,
    changes: Record<string, unknown>,
    reason?: string,
  ): Promise<Submitted<void>> {
    const actor = this.actor(principal);
    const policy = await this.repository.policy(principal.applicationId);
    if (!mayAct(policy, action, actor))
      throw gatewayError('governance_forbidden', `This credential may not ${action.replace('_', ' ')}`, { action });
    if (policy.four_eyes.includes(action))
      return { outcome: 'pending', request: await this.open(principal.applicationId, actor, action, target, changes, reason) };
    const now = this.clock.now();
    const id = newRegionalId('change_request', this.config.REGION as IdRegion);
    // A direct change is a request approved by its own author: the audit entry says so.
    const draft = { id, action, target, changes } as ChangeRequest;
    const step = await this.audit(principal.applicationId, draft, 'applied', actor, now);
    await this.repository.transaction((manager) =>
      this.apply(manager, { ...draft, applicationId: principal.applicationId }, step.audit_entry_id, now),
    );
    return { outcome: 'applied', result: undefined };
  }

  private async open(
    applicationId: string,
    actor: string,
    action: GovernedAction,
    target: string,
    changes: Record<string, unknown>,
    reason?: string,
  ): Promise<ChangeRequest> {
    const now = this.clock.now();
    const id = newRegionalId('change_request', this.config.REGION as IdRegion);
    const draft = { id, action, target, changes } as ChangeRequest;
    const step = await this.audit(applicationId, draft, 'requested', actor, now);
    return this.repository.transaction((manager) =>
      this.repository.insertRequest(manager, {
        id,
        applicationId,
        action,
        target,
        changes,
        status: 'pending',
        requestedBy: actor,
        reason: reason ?? null,
        steps: [step],
        createdAt: now,
        expiresAt: new Date(now.getTime() + CHANGE_REQUEST_TTL_MS),
      }),
    );
  }

  private async carryOut(
    applicationId: string,
    actor: string,
    action: GovernedAction,
    target: string,
    matches: (request: ChangeRequest) => boolean,
  ): Promise<string> {
    const now = this.clock.now();
    return this.repository.transaction(async (manager) => {
      const approved = await this.repository.approvedFor(manager, applicationId, action, target, now);
      if (!approved || !matches(approved)) {
        throw gatewayError(
          'approval_required',
          `${action} needs an approved change request (four-eyes): POST /api/v1/governance/change_requests`,
          { action, target },
        );
      }
      const step = await this.audit(applicationId, approved, 'applied', actor, now);
      await this.repository.updateRequest(manager, approved.id, { status: 'applied', appliedAt: now, steps: [...approved.steps, step] });
      return approved.id;
    });
  }

  private async apply(
    manager: EntityManager,
    request: Pick<ChangeRequest, 'applicationId' | 'action' | 'target' | 'changes'>,
    auditEntryId: string,
    now: Date,
  ): Promise<void> {
    if (request.action === 'change_modules') {
      const { enabled, ...settings } = request.changes as unknown as ModuleChange;
      await this.repository.saveModule(
        manager,
        request.applicationId,
        request.target as Regime,
        enabled,
        settings as ModuleSettings,
        auditEntryId,
        now,
      );
    } else if (request.action === 'change_governance') {
      await this.repository.savePolicy(
        manager,
        request.applicationId,
        request.changes as unknown as Pick<GovernancePolicy, 'roles' | 'four_eyes'>,
        auditEntryId,
        now,
      );
    }
  }

  private async pendingRequest(applicationId: string, id: string, now: Date): Promise<ChangeRequest> {
    const request = await this.request(applicationId, id);
    if (request.status === 'pending' && request.expiresAt <= now) {
      const step = await this.audit(applicationId, request, 'expired', null, now);
      await this.repository.transaction((manager) =>
        this.repository.updateRequest(manager, id, { status: 'expired', steps: [...request.steps, step] }),
      );
      throw gatewayError('change_request_not_pending', 'The change request expired', { change_request_id: id, status: 'expired' });
    }
    if (request.status !== 'pending')
      throw gatewayError('change_request_not_pending', `The change request is ${request.status}`, {
        change_request_id: id,
        status: request.status,
      });
    return request;
  }

  /** Appends one step to the audit chain; idempotent per request and step. */
  private async audit(
    applicationId: string,
    request: Pick<ChangeRequest, 'id' | 'action' | 'target' | 'changes'>,
    step: ChangeRequestStep['step'],
    actor: string | null,
    at: Date,
  ): Promise<ChangeRequestStep> {
    const fact = {
      change_request_id: request.id,
      action: request.action,
      target: request.target,
      changes: request.changes,
      step,
      actor_id: actor,
      at: at.toISOString(),
    };
    const entry = await this.rpc.call('audit.append_entry', {
      type: `governance.change_${step}`,
      applicationId,
      sourceEventId: `governance:${applicationId}:${request.id}:${step}`,
      dataJson: canonicalJson(fact),
    });
    return { step, actor_id: actor, at: at.toISOString(), audit_entry_id: entry.id };
  }

  private actor(principal: Principal): string {
    const actor = actorOf(principal);
    if (!actor)
      throw gatewayError('governance_forbidden', "Governed changes need an API token or a person's access token", { action: 'credential' });
    return actor;
  }

  private regime(value: string): Regime {
    if (!(REGIMES as readonly string[]).includes(value))
      throw gatewayError('module_not_found', `No module ${value}; one of ${REGIMES.join(', ')}`, { regime: value });
    return value as Regime;
  }

  private async moduleOf(applicationId: string, regime: Regime): Promise<ComplianceModule> {
    return (await this.repository.modules(applicationId)).find((module) => module.regime === regime)!;
  }

  /** A module may be tightened, never loosened below its regime's floor. */
  private checkModuleChange(regime: Regime, change: ModuleChange): ModuleSettings {
    const definition = REGIME_DEFINITIONS[regime];
    const settings: ModuleSettings = {};
    if (change.minimum_age !== undefined) {
      if (!Number.isInteger(change.minimum_age) || change.minimum_age < definition.minimumAgeFloor || change.minimum_age > 21) {
        throw gatewayError(
          'module_settings_invalid',
          `minimum_age under ${definition.name} is an integer from ${definition.minimumAgeFloor} to 21`,
          { field: 'minimum_age' },
        );
      }
      settings.minimum_age = change.minimum_age;
    }
    if (change.retention_ceiling !== undefined) {
      const days = isDuration(change.retention_ceiling) ? durationDays(change.retention_ceiling) : undefined;
      if (days === undefined || days < 1 || days > 36_500)
        throw gatewayError('module_settings_invalid', 'retention_ceiling is an ISO 8601 duration from P1D to P100Y', {
          field: 'retention_ceiling',
        });
      settings.retention_ceiling = change.retention_ceiling;
    }
    if (change.sensitive_purposes !== undefined) {
      if (change.sensitive_purposes.length > 50 || !change.sensitive_purposes.every((key) => PURPOSE_KEY.test(key))) {
        throw gatewayError('module_settings_invalid', 'sensitive_purposes holds up to 50 purpose keys', { field: 'sensitive_purposes' });
      }
      settings.sensitive_purposes = [...new Set(change.sensitive_purposes)].sort();
    }
    return settings;
  }

  /** A policy must name known actors and keep every four-eyes action approvable by two of them. */
  private async checkPolicyChange(applicationId: string, change: PolicyChange): Promise<Pick<GovernancePolicy, 'roles' | 'four_eyes'>> {
    const roles = {} as Record<GovernedAction, string[] | null>;
    for (const action of GOVERNED_ACTIONS) {
      const role = change.roles[action];
      if (role === undefined || role === null) {
        roles[action] = null;
        continue;
      }
      if (role.length === 0 || role.length > MAX_ROLE_ACTORS)
        throw gatewayError(
          'governance_policy_invalid',
          `roles.${action} names 1 to ${MAX_ROLE_ACTORS} actors, or is null for every credential`,
          { field: `roles.${action}` },
        );
      role.forEach((actor, index) => {
        if (!ACTOR_ID.test(actor))
          throw gatewayError('governance_policy_invalid', 'An actor is an api_token_… or usr_… id', { field: `roles.${action}[${index}]` });
      });
      roles[action] = [...new Set(role)];
    }
    const tokens = [
      ...new Set(
        Object.values(roles)
          .flatMap((role) => role ?? [])
          .filter((actor) => actor.startsWith('api_token_')),
      ),
    ];
    const known = await this.repository.knownTokenIds(applicationId, tokens);
    for (const action of GOVERNED_ACTIONS) {
      (roles[action] ?? []).forEach((actor, index) => {
        if (actor.startsWith('api_token_') && !known.has(actor))
          throw gatewayError('governance_policy_invalid', 'Not an API token of this application', { field: `roles.${action}[${index}]` });
      });
    }
    const fourEyes = [...new Set(change.four_eyes)].sort();
    for (const action of fourEyes) {
      const role = roles[action];
      if (role !== null && role.length < 2)
        throw gatewayError('governance_policy_invalid', `Four-eyes on ${action} needs at least two actors who may approve`, {
          field: `roles.${action}`,
        });
    }
    return { roles, four_eyes: fourEyes };
  }
}

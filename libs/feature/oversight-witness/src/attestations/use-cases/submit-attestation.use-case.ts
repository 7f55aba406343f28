import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex, type ActiveSigningKey } from '@svc/crypto';
import { validationError } from '@svc/errors';
import { newApprovalSessionToken, newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { BUSINESS_METRICS, Metrics } from '@svc/telemetry';
import type { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import type { TrustedAttester } from '../../attesters/attester';
import { oversightError } from '../../oversight.errors';
import { ResolveAgentClassRoute } from '../../routing/resolve-agent-class-route.use-case';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import {
  APPROVAL_TTL_SECONDS,
  DECIDED_AT_SKEW_SECONDS,
  canonicalAttestationRequest,
  needsHuman,
  type AttestationCommand,
} from '../attestation';
import { AttestationsRepository, isAttestationKeyConflict, type StoredAttestation } from '../attestations.repository';
import { WitnessReceiptSigner, policyClaims } from '../witness-receipt';
import { emitAttestationWitnessed } from './emit-attestation-witnessed';

/** The human approval opened by an escalated attestation (token shown in the first response only). */
export interface OpenedEscalation {
  decisionUrl: string;
  sessionToken: string;
  approvalTtlAt: Date;
}

/** A counter-proposal handed back to the engine with its next attestation of the same agent class. */
export interface DeliveredCounter {
  attestationId: string;
  attestationKey: string;
  counterProposal: Record<string, unknown> | null;
  counteredAt: Date | null;
}

/** Result of a submission: the stored attestation and whether it was an idempotent replay. */
export interface SubmittedAttestation {
  attestation: StoredAttestation;
  idempotentReplay: boolean;
  escalation?: OpenedEscalation;
  counterProposals: DeliveredCounter[];
}

/**
 * Witnesses a policy engine's attestation (spec, Attestation request; Runtime receipts, witness
 * column). Contract, in order:
 * 1. The attester may only attest for its own application (the account boundary until accounts
 *    exist; a scoped attester is pinned to it explicitly): else 403 `application_not_permitted`.
 * 2. `attestation_id` is the idempotency key per application. Same key + same canonical request:
 *    the original attestation and receipt, `idempotent_replay: true`, nothing re-emitted. Same key
 *    + different request: 409 `attestation_id_reused` (409, not 422: the body is valid, it
 *    conflicts with stored state).
 * 3. Escalating (`decision: escalate` or `requires_human_approval`) needs `escalations:create`.
 * 4. The application must route the agent class to oversight (mode `oversight`, or `hybrid` with
 *    the class routed so): else 409 `application_not_in_oversight_mode` /
 *    `agent_class_routed_to_conductor`.
 * 5. `decided_at` may not lie more than 60 s in the future (422 `validation_failed`).
 * 6. `sequence_number` must exceed the highest accepted for the agent class: a lower or repeated
 *    number (under a new attestation_id) is 409 `sequence_number_not_monotonic` and is not
 *    witnessed, since a witness must not certify a reordered or replayed decision stream. A jump
 *    (n > last + 1) is accepted and flagged `sequence_gap` with `expected_sequence_number`; the
 *    first attestation of a class sets the baseline (no gap).
 * 7. The witness receipt is signed, the row stored, `attestation.witnessed` emitted; an escalation
 *    also emits `oversight.approval_requested` (decision-gateway opens the approval session); pending
 *    counter-proposals of the class are delivered in this response.
 */
@Injectable()
export class SubmitAttestation {
  private readonly witnessedCounted: Counter<'decision' | 'sequence_gap'>;

  constructor(
    private readonly attestations: AttestationsRepository,
    private readonly routes: ResolveAgentClassRoute,
    private readonly signer: WitnessReceiptSigner,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    metrics: Metrics,
  ) {
    this.witnessedCounted = metrics.counterOf(BUSINESS_METRICS.attestationsWitnessed);
  }

  async execute(attester: TrustedAttester, command: AttestationCommand): Promise<SubmittedAttestation> {
    if (
      command.applicationId !== attester.applicationId ||
      (attester.scopeApplicationId !== null && command.applicationId !== attester.scopeApplicationId)
    ) {
      throw oversightError('application_not_permitted', 'This trusted attester may not attest for that application', {
        field: 'application_id',
        application_id: command.applicationId,
      });
    }
    const requestSha256 = sha256Hex(canonicalJson(canonicalAttestationRequest(command)));
    const existing = await this.attestations.findByKey(command.applicationId, command.attestationKey);
    if (existing) return this.replay(existing, requestSha256);

    if (needsHuman(command) && !attester.permissions.includes('escalations:create')) {
      throw oversightError('insufficient_permission', 'Escalating to a human needs the permission escalations:create', {
        required_permission: 'escalations:create',
      });
    }
    const route = await this.routes.execute(command.applicationId, command.agentClass);
    if (route.mode === 'conductor') {
      throw oversightError(
        'application_not_in_oversight_mode',
        'The application is in conductor mode: its grants are decided by the cascade',
        {
          mode: route.mode,
        },
      );
    }
    if (route.route !== 'oversight') {
      throw oversightError('agent_class_routed_to_conductor', 'This hybrid application routes the agent class to the conductor cascade', {
        field: 'agent_class',
        agent_class: command.agentClass,
      });
    }
    const now = this.clock.now();
    if (Date.parse(command.decidedAt) > now.getTime() + DECIDED_AT_SKEW_SECONDS * 1000) {
      throw validationError([
        { field: 'decided_at', constraint: 'notInFuture', message: 'decided_at lies more than 60 seconds in the future' },
      ]);
    }
    // Read before the transaction: it holds the agent class's sequence lock, which concurrent submissions wait on with their connections.
    const key = await this.signer.signingKey();
    try {
      const witnessed = await this.attestations.transaction((manager) => this.witness(manager, key, attester, command, requestSha256, now));
      if (witnessed.idempotentReplay) return witnessed;
      this.witnessedCounted.inc({ decision: command.decision, sequence_gap: String(witnessed.attestation.sequenceGap) });
      return witnessed;
    } catch (error) {
      // A concurrent submission of the same key won the insert: answer as its replay.
      if (!isAttestationKeyConflict(error)) throw error;
      const winner = await this.attestations.findByKey(command.applicationId, command.attestationKey);
      if (!winner) throw error;
      return this.replay(winner, requestSha256);
    }
  }

  private replay(existing: StoredAttestation, requestSha256: string): SubmittedAttestation {
    if (existing.requestSha256 !== requestSha256) {
      throw oversightError('attestation_id_reused', 'attestation_id was already used for a different attestation', {
        field: 'attestation_id',
        attestation: existing.id,
      });
    }
    return { attestation: existing, idempotentReplay: true, counterProposals: [] };
  }

  private async witness(
    manager: EntityManager,
    key: ActiveSigningKey,
    attester: TrustedAttester,
    command: AttestationCommand,
    requestSha256: string,
    now: Date,
  ): Promise<SubmittedAttestation> {
    const last = await this.attestations.lockSequence(manager, command.applicationId, command.agentClass, now);
    // A concurrent submission of the same key may have committed while this one waited for the
    // sequence lock: it is a replay, not a reordered decision stream.
    const committed = await this.attestations.findByKey(command.applicationId, command.attestationKey, manager);
    if (committed) return this.replay(committed, requestSha256);
    if (last !== null && command.sequenceNumber <= last) {
      throw oversightError(
        'sequence_number_not_monotonic',
        `sequence_number must exceed ${last}, the highest accepted for this agent_class`,
        {
          field: 'sequence_number',
          last_sequence_number: last,
        },
      );
    }
    const sequenceGap = last !== null && command.sequenceNumber > last + 1;
    const escalate = needsHuman(command);
    const id = newRegionalId('attestation', this.config.REGION);
    const attestationDigest = `sha256:${requestSha256}`;
    const receipt = await this.signer.sign(key, {
      attestationId: id,
      decision: escalate ? 'escalate' : command.decision,
      legalBasis: command.legalBasis,
      ...policyClaims(command.context, attester.id),
      attestationDigest,
      issuedAt: now,
    });
    const escalation: OpenedEscalation | undefined = escalate ? this.openEscalation(now) : undefined;
    const attestation: StoredAttestation = {
      id,
      applicationId: command.applicationId,
      attesterId: attester.id,
      attestationKey: command.attestationKey,
      requestSha256,
      agentClass: command.agentClass,
      actionClass: command.actionClass,
      decision: command.decision,
      decidedAt: new Date(command.decidedAt),
      sequenceNumber: command.sequenceNumber,
      sequenceGap,
      expectedSequenceNumber: sequenceGap && last !== null ? last + 1 : null,
      legalBasis: command.legalBasis,
      evidenceDigest: command.evidenceDigest,
      context: command.context,
      requiresHumanApproval: command.requiresHumanApproval,
      status: escalate ? 'pending_approval' : 'witnessed',
      receivedAt: now,
      receipt: receipt.token,
      receiptJti: receipt.jti,
      approvalTtlAt: escalation?.approvalTtlAt ?? null,
      resolutionReceipt: null,
      resolvedAt: null,
      counterProposal: null,
    };
    await this.attestations.insert(manager, attestation);
    await this.attestations.advanceSequence(manager, command.applicationId, command.agentClass, command.sequenceNumber, now);
    await emitAttestationWitnessed(this.outbox, manager, attestation, { receipt: receipt.token, jti: receipt.jti, attestationDigest }, now);
    if (escalation) await this.requestApproval(manager, attestation, escalation, now);
    const counters = await this.attestations.takeUndeliveredCounters(manager, command.applicationId, command.agentClass, now);
    return {
      attestation,
      idempotentReplay: false,
      escalation,
      counterProposals: counters.map((c) => ({
        attestationId: c.id,
        attestationKey: c.attestationKey,
        counterProposal: c.counterProposal,
        counteredAt: c.resolvedAt,
      })),
    };
  }

  private openEscalation(now: Date): OpenedEscalation {
    const sessionToken = newApprovalSessionToken();
    return {
      sessionToken,
      decisionUrl: `${this.config.publicBaseUrl}/decisions/${sessionToken}`,
      approvalTtlAt: new Date(now.getTime() + APPROVAL_TTL_SECONDS * 1000),
    };
  }

  /**
   * Publishes `oversight.approval_requested`, the message conductor escalations use, so
   * decision-gateway opens an approval session (kind approval, trigger escalation) with the
   * attestation id as `reference`; its approval.granted/denied/countered events come back to
   * {@link ApprovalOutcomes}. Approvers: `context.approvers` (strings) or `context.principal_id`,
   * else the application itself. Only the session token's SHA-256 crosses the bus.
   */
  private async requestApproval(
    manager: EntityManager,
    attestation: StoredAttestation,
    escalation: OpenedEscalation,
    now: Date,
  ): Promise<void> {
    const context = attestation.context ?? {};
    const approvers = Array.isArray(context.approvers)
      ? context.approvers.filter((a): a is string => typeof a === 'string' && a.length > 0 && a.length <= 200)
      : [];
    const principalId =
      typeof context.principal_id === 'string' && context.principal_id.length <= 200 ? context.principal_id : attestation.applicationId;
    await this.outbox.add(
      manager,
      'oversight.approval_requested',
      {
        escalationId: attestation.id,
        agentId: '',
        authorityId: '',
        principalId,
        quorumType: 'all',
        approvers: approvers.length > 0 ? approvers : [principalId],
        threshold: 0,
        decisionUrl: escalation.decisionUrl,
        sessionTokenSha256: sha256Hex(escalation.sessionToken),
        approvalTtlAt: escalation.approvalTtlAt.toISOString(),
        requestJson: canonicalJson({
          kind: 'oversight_attestation',
          attestation_id: attestation.id,
          agent_class: attestation.agentClass,
          action_class: attestation.actionClass,
          decision: attestation.decision,
          legal_basis: attestation.legalBasis,
          context: attestation.context,
        }),
      },
      { applicationId: attestation.applicationId, occurredAt: now },
    );
  }
}

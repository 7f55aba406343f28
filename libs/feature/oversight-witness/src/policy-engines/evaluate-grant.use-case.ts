import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption, canonicalJson, sha256Hex } from '@svc/crypto';
import type { EgressEnvironment } from '@svc/egress';
import { DomainError } from '@svc/errors';
import { AttestersRepository } from '../attesters/attesters.repository';
import { AttestationsRepository } from '../attestations/attestations.repository';
import {
  AuthZenAttestationAdapter,
  authZenEvidenceDigest,
  authZenPolicyRef,
  type AuthZenAttestationRequest,
  type AuthZenEvaluationRequest,
} from '../authzen/authzen-attestation.adapter';
import { credentialHeaders } from './policy-engine';
import { PolicyEnginesRepository } from './policy-engines.repository';

/** A grant request of an agent class routed to the customer's engine. */
export interface EvaluateGrantCommand {
  applicationId: string;
  environment: EgressEnvironment;
  agentClass: string;
  agentId: string;
  scopes: string[];
  actions: string[];
  value?: { amount: string; currency: string };
  purpose?: string;
  jurisdiction?: string;
  validUntil: string;
  authorityId?: string;
  /** Correlates the engine calls and names the attestation (`grant-<request id>`). */
  requestId: string;
}

/** Why no decision was obtained. */
export type EngineUnavailableReason = 'timeout' | 'unreachable' | 'target_refused' | 'invalid_response' | 'no_engine' | 'attester_inactive';

export type EvaluateGrantOutcome =
  | { outcome: 'allow' | 'deny'; attestationId: string; receipt: string; sequenceNumber: number; policyRef: string }
  | { outcome: 'unavailable' | 'not_configured'; reason: EngineUnavailableReason; policyRef: string };

/** Attempts at a free sequence number when concurrent requests of the class race for the same one. */
const SEQUENCE_ATTEMPTS = 5;

/**
 * Hybrid mode, oversight route: asks the application's OpenID AuthZEN 1.0 engine about a grant
 * request and witnesses the answer. One Access Evaluation per action (subject = the agent, with
 * its class; action = the action; resource = the authority or agent with the requested scopes,
 * value, validity, purpose and jurisdiction; context = the request id and time); every action
 * must be allowed, and the first `false` ends the round. The answer becomes one attestation
 * (`allow` / `deny`) whose `evidence_digest` binds every exchange, witnessed through
 * {@link AuthZenAttestationAdapter.attest} in the name of the engine's configured trusted
 * attester, with the next sequence number of the class, so the witness receipt certifies the
 * customer's decision exactly as if the engine had submitted it. An engine that times out, cannot
 * be reached, or answers anything but `{decision: boolean}` has not decided: nothing is witnessed,
 * and the caller must fail closed.
 */
@Injectable()
export class EvaluateGrant {
  constructor(
    private readonly engines: PolicyEnginesRepository,
    private readonly attesters: AttestersRepository,
    private readonly attestations: AttestationsRepository,
    private readonly adapter: AuthZenAttestationAdapter,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async execute(command: EvaluateGrantCommand): Promise<EvaluateGrantOutcome> {
    const engine = await this.engines.find(command.applicationId);
    if (!engine) return { outcome: 'not_configured', reason: 'no_engine', policyRef: '' };
    const policyRef = authZenPolicyRef(engine.baseUrl);
    const attester = await this.attesters.find(command.applicationId, engine.attesterId);
    if (!attester || attester.status !== 'active') return { outcome: 'not_configured', reason: 'attester_inactive', policyRef };
    // aad = application id: a ciphertext moved onto another application's row does not decrypt.
    const secret = engine.credentialEnc === null ? null : this.kek.decrypt(engine.credentialEnc, command.applicationId).toString('utf8');
    const pdpHeaders = credentialHeaders(engine, secret);
    const now = this.clock.now();
    const exchanges: Array<{ request: AuthZenEvaluationRequest; response: Record<string, unknown> }> = [];
    let allowed = true;
    for (const action of command.actions) {
      const evaluation = evaluationOf(command, action, now);
      try {
        const response = await this.adapter.evaluate({
          pdpBaseUrl: engine.baseUrl,
          pdpHeaders,
          environment: command.environment,
          timeoutMs: engine.timeoutMs,
          evaluation,
          attestationId: command.requestId,
        });
        exchanges.push({ request: evaluation, response });
        if (response.decision !== true) {
          allowed = false;
          break;
        }
      } catch (error) {
        if (error instanceof DomainError && error.code === 'authzen_pdp_unreachable') {
          const cause = (error.detail as { cause?: EngineUnavailableReason } | undefined)?.cause ?? 'unreachable';
          return { outcome: 'unavailable', reason: cause, policyRef };
        }
        if (error instanceof DomainError && error.code === 'authzen_response_invalid')
          return { outcome: 'unavailable', reason: 'invalid_response', policyRef };
        throw error;
      }
    }
    const first = exchanges[0]!;
    const evidenceDigest =
      exchanges.length === 1 ? authZenEvidenceDigest(first.request, first.response) : sha256Hex(canonicalJson({ exchanges }));
    for (let attempt = 1; ; attempt += 1) {
      const request: AuthZenAttestationRequest = {
        pdpBaseUrl: engine.baseUrl,
        environment: command.environment,
        evaluation: first.request,
        attestationId: `grant-${command.requestId}`,
        applicationId: command.applicationId,
        agentClass: command.agentClass,
        actionClass: command.actions[0],
        sequenceNumber: (await this.attestations.lastSequence(command.applicationId, command.agentClass)) + 1,
        // The agent acts for its principal in a service the principal asked for.
        legalBasis: 'contract',
        decidedAt: now.toISOString(),
      };
      try {
        const witnessed = await this.adapter.attest(attester, request, {
          decision: allowed,
          evidenceDigest,
          extraContext: {
            grant_request: { request_id: command.requestId, agent_id: command.agentId, actions: command.actions, scopes: command.scopes },
          },
        });
        const { attestation } = witnessed;
        return {
          outcome: allowed ? 'allow' : 'deny',
          attestationId: attestation.id,
          receipt: attestation.receipt,
          sequenceNumber: attestation.sequenceNumber,
          policyRef,
        };
      } catch (error) {
        // Another request of the class took the number first: take the next one.
        if (!(error instanceof DomainError && error.code === 'sequence_number_not_monotonic') || attempt >= SEQUENCE_ATTEMPTS) throw error;
      }
    }
  }
}

/** The AuthZEN 1.0 Access Evaluation request (§6.1) of one action of a grant request. */
export function evaluationOf(command: EvaluateGrantCommand, action: string, now: Date): AuthZenEvaluationRequest {
  return {
    subject: { type: 'agent', id: command.agentId, properties: { agent_class: command.agentClass, application_id: command.applicationId } },
    action: { name: action },
    resource: {
      type: command.authorityId === undefined ? 'agent' : 'authority',
      id: command.authorityId ?? command.agentId,
      properties: {
        scopes: command.scopes,
        valid_until: command.validUntil,
        ...(command.value ? { value: { amount: command.value.amount, currency: command.value.currency } } : {}),
        ...(command.purpose !== undefined ? { purpose: command.purpose } : {}),
        ...(command.jurisdiction !== undefined ? { jurisdiction: command.jurisdiction } : {}),
      },
    },
    context: { request_id: command.requestId, time: now.toISOString() },
  };
}

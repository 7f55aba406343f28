import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { Clock } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { ABORTED_ERROR, EgressClient, isRefusedTargetError, type EgressEnvironment } from '@svc/egress';
import { flattenValidationErrors, validationError } from '@svc/errors';
import type { TrustedAttester } from '../attesters/attester';
import type { AttestationCommand, LegalBasis } from '../attestations/attestation';
import { SubmitAttestationBody } from '../attestations/attestations.dto';
import { SubmitAttestation, type SubmittedAttestation } from '../attestations/use-cases/submit-attestation.use-case';
import { oversightError } from '../oversight.errors';

/** Path of the AuthZEN 1.0 Access Evaluation API, relative to the PDP base URL. */
export const AUTHZEN_EVALUATION_PATH = '/access/v1/evaluation';

/** How long the adapter waits for the PDP, ms (default 5 000). */
export const AUTHZEN_TIMEOUT_MS = 5_000;

/** Largest PDP response body read, bytes (64 KiB); a larger answer is refused, not buffered. */
export const MAX_AUTHZEN_RESPONSE_BYTES = 65_536;

/** AuthZEN subject (§5.1): `type` and `id` required. */
export interface AuthZenSubject {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}

/** AuthZEN resource (§5.2): `type` and `id` required. */
export interface AuthZenResource {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}

/** AuthZEN action (§5.3): `name` required. */
export interface AuthZenAction {
  name: string;
  properties?: Record<string, unknown>;
}

/** An AuthZEN Access Evaluation request (§6.1). */
export interface AuthZenEvaluationRequest {
  subject: AuthZenSubject;
  action: AuthZenAction;
  resource: AuthZenResource;
  context?: Record<string, unknown>;
}

/** Why a PDP call produced no answer (`detail.cause` of `authzen_pdp_unreachable`). */
export type AuthZenUnreachableCause = 'timeout' | 'unreachable' | 'target_refused';

/** What the adapter needs to evaluate one request and attest the answer. */
export interface AuthZenAttestationRequest {
  /** The customer's PDP, e.g. `https://pdp.example.com` (the evaluation path is appended). */
  pdpBaseUrl: string;
  /** Extra headers for the PDP (e.g. its own `authorization`); never forwarded anywhere else. */
  pdpHeaders?: Record<string, string>;
  /** The application's environment: which addresses the call may reach (egress policy). */
  environment: EgressEnvironment;
  /** Overall deadline of the PDP call, ms (default {@link AUTHZEN_TIMEOUT_MS}). */
  timeoutMs?: number;
  evaluation: AuthZenEvaluationRequest;
  attestationId: string;
  applicationId: string;
  agentClass: string;
  /** Defaults to `evaluation.action.name`. */
  actionClass?: string;
  sequenceNumber: number;
  legalBasis: LegalBasis;
  requiresHumanApproval?: boolean;
  /**
   * RFC 3339 decision time; default: the clock's now. Pass the time of the first try when
   * retrying, so the retry is the same attestation and replays instead of being refused.
   */
  decidedAt?: string;
}

/** The attestation witnessed for an AuthZEN answer, plus the PDP exchange it rests on. */
export interface AuthZenAttestationResult extends SubmittedAttestation {
  pdpDecision: boolean;
  /** SHA-256 hex of RFC 8785 canonical JSON of `{request, response}`: the attestation's evidence_digest. */
  evidenceDigest: string;
}

/** `policy_ref` of attestations from a PDP: `authzen:<origin>` (≤ 128 characters). */
export function authZenPolicyRef(pdpBaseUrl: string): string {
  return `authzen:${new URL(pdpBaseUrl).origin}`.slice(0, 128);
}

/** evidence_digest of an AuthZEN exchange: SHA-256 hex of the RFC 8785 canonical JSON of `{request, response}`. */
export function authZenEvidenceDigest(request: AuthZenEvaluationRequest, response: Record<string, unknown>): string {
  return sha256Hex(canonicalJson({ request, response }));
}

/**
 * Lets an OpenID AuthZEN 1.0 PDP (OPA, Cerbos, Topaz…) act as the Oversight-mode policy engine
 * without custom code: calls `POST <pdp>/access/v1/evaluation` with `{subject, action, resource,
 * context}`, maps `{"decision": true|false}` to an `allow` / `deny` attestation whose
 * `evidence_digest` binds the exact request and response, and submits it through
 * {@link SubmitAttestation} (same validation, idempotency, sequence and witnessing rules).
 *
 * Failures: network error, refused address or timeout → `authzen_pdp_unreachable` (`detail.cause`
 * `unreachable`, `target_refused`, `timeout`); non-200, non-JSON, oversized, or a `decision` that
 * is not a boolean → `authzen_response_invalid`. Nothing is attested then: a PDP that did not
 * answer has not decided. The PDP URL comes from trusted configuration, never from a request body
 * (it is an outbound call: SSRF otherwise), and the call goes through the egress policy (DNS
 * pinned, no private targets in production, no redirects) with an overall deadline.
 */
@Injectable()
export class AuthZenAttestationAdapter implements OnModuleDestroy {
  private readonly egress = new EgressClient({ maxResponseBytes: MAX_AUTHZEN_RESPONSE_BYTES + 1, responseBody: 'text' });

  constructor(
    private readonly submitAttestation: SubmitAttestation,
    private readonly clock: Clock,
  ) {}

  async onModuleDestroy(): Promise<void> {
    await this.egress.close();
  }

  async execute(attester: TrustedAttester, request: AuthZenAttestationRequest): Promise<AuthZenAttestationResult> {
    const response = await this.evaluate(request);
    const decision = response.decision as boolean;
    return this.attest(attester, request, { decision, evidenceDigest: authZenEvidenceDigest(request.evaluation, response) });
  }

  /**
   * Witnesses an answer already obtained from the PDP (one evaluation, or several that must all
   * allow): `evidenceDigest` binds the exact exchanges; `extraContext` joins the attestation context.
   */
  async attest(
    attester: TrustedAttester,
    request: AuthZenAttestationRequest,
    answer: { decision: boolean; evidenceDigest: string; extraContext?: Record<string, unknown> },
  ): Promise<AuthZenAttestationResult> {
    const { decision, evidenceDigest } = answer;
    const command = await this.validatedCommand({
      attestation_id: request.attestationId,
      application_id: request.applicationId,
      agent_class: request.agentClass,
      action_class: request.actionClass ?? request.evaluation.action.name,
      decision: decision ? 'allow' : 'deny',
      decided_at: request.decidedAt ?? this.clock.now().toISOString(),
      sequence_number: request.sequenceNumber,
      legal_basis: request.legalBasis,
      evidence_digest: evidenceDigest,
      context: {
        policy_ref: authZenPolicyRef(request.pdpBaseUrl),
        authzen: {
          subject: { type: request.evaluation.subject.type, id: request.evaluation.subject.id },
          action: { name: request.evaluation.action.name },
          resource: { type: request.evaluation.resource.type, id: request.evaluation.resource.id },
        },
        ...answer.extraContext,
      },
      requires_human_approval: request.requiresHumanApproval ?? false,
    });
    const submitted = await this.submitAttestation.execute(attester, command);
    return { ...submitted, pdpDecision: decision, evidenceDigest };
  }

  /** One AuthZEN Access Evaluation call; returns the PDP's JSON object with a boolean `decision`. */
  async evaluate(
    request: Pick<AuthZenAttestationRequest, 'pdpBaseUrl' | 'pdpHeaders' | 'environment' | 'timeoutMs' | 'evaluation' | 'attestationId'>,
  ): Promise<Record<string, unknown>> {
    const url = `${request.pdpBaseUrl.replace(/\/$/, '')}${AUTHZEN_EVALUATION_PATH}`;
    const res = await this.egress.send({
      method: 'POST',
      url,
      headers: {
        ...request.pdpHeaders,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-request-id': request.attestationId,
      },
      body: JSON.stringify(request.evaluation),
      environment: request.environment,
      signal: AbortSignal.timeout(request.timeoutMs ?? AUTHZEN_TIMEOUT_MS),
    });
    if ('error' in res) {
      const cause: AuthZenUnreachableCause =
        res.error === ABORTED_ERROR ? 'timeout' : isRefusedTargetError(res.error) ? 'target_refused' : 'unreachable';
      throw oversightError('authzen_pdp_unreachable', 'The AuthZEN PDP could not be reached', { pdp: new URL(url).origin, cause });
    }
    const text = res.body;
    if (res.statusCode !== 200)
      throw oversightError('authzen_response_invalid', `The AuthZEN PDP answered HTTP ${res.statusCode}`, { status: res.statusCode });
    if (Buffer.byteLength(text) > MAX_AUTHZEN_RESPONSE_BYTES)
      throw oversightError('authzen_response_invalid', 'The AuthZEN PDP response is too large');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw oversightError('authzen_response_invalid', 'The AuthZEN PDP response is not JSON');
    }
    if (
      body === null ||
      typeof body !== 'object' ||
      Array.isArray(body) ||
      typeof (body as { decision?: unknown }).decision !== 'boolean'
    ) {
      throw oversightError('authzen_response_invalid', 'The AuthZEN PDP response lacks a boolean "decision"');
    }
    return body as Record<string, unknown>;
  }

  /** Runs the HTTP edge's own rules on the synthesised request, so the adapter cannot attest what the API would refuse. */
  private async validatedCommand(plain: Record<string, unknown>): Promise<AttestationCommand> {
    const body = plainToInstance(SubmitAttestationBody, plain);
    const errors = await validate(body, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    if (errors.length > 0) throw validationError(flattenValidationErrors(errors));
    return {
      attestationKey: body.attestation_id,
      applicationId: body.application_id as string,
      agentClass: body.agent_class,
      actionClass: body.action_class,
      decision: body.decision,
      decidedAt: body.decided_at,
      sequenceNumber: body.sequence_number,
      legalBasis: body.legal_basis,
      evidenceDigest: body.evidence_digest,
      context: body.context ?? null,
      requiresHumanApproval: body.requires_human_approval ?? false,
    };
  }
}

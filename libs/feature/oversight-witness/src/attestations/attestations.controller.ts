import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { validationError } from '@svc/errors';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { livenessView } from '../attesters/attester';
import { AttesterRoute, CurrentAttester, type AttesterPrincipal } from '../attesters/attester-auth.guard';
import { AttestersRepository } from '../attesters/attesters.repository';
import { RecordHeartbeat } from '../heartbeats/record-heartbeat.use-case';
import { oversightError } from '../oversight.errors';
import { DEFAULT_SILENT_AFTER_SECONDS } from '../attesters/attester';
import type { AttestationCommand } from './attestation';
import { AttestationReadResponse, AttesterLivenessResponse, HeartbeatResponse, SubmittedAttestationResponse } from './attestation.response';
import { attestationDetailView, attestationView, counterView, escalationView } from './attestation.views';
import { HeartbeatBody, LivenessQuery, SubmitAttestationBody } from './attestations.dto';
import { AttestationsRepository } from './attestations.repository';
import { SubmitAttestation } from './use-cases/submit-attestation.use-case';

/** Folds the legacy alias and applies defaults; both ids sent and different is a 422 naming `touchpoint_id`. */
function toCommand(body: SubmitAttestationBody): AttestationCommand {
  if (body.application_id !== undefined && body.touchpoint_id !== undefined && body.application_id !== body.touchpoint_id) {
    throw validationError([
      {
        field: 'touchpoint_id',
        constraint: 'equalsApplicationId',
        message: 'touchpoint_id (legacy alias) must equal application_id when both are sent',
      },
    ]);
  }
  return {
    attestationKey: body.attestation_id,
    applicationId: (body.application_id ?? body.touchpoint_id) as string,
    agentClass: body.agent_class,
    actionClass: body.action_class,
    decision: body.decision,
    decidedAt: body.decided_at,
    sequenceNumber: body.sequence_number,
    legalBasis: body.legal_basis,
    evidenceDigest: body.evidence_digest.toLowerCase(),
    context: body.context ?? null,
    requiresHumanApproval: body.requires_human_approval ?? false,
  };
}

/**
 * OAP Oversight endpoints. Attester-token routes (`AttesterRoute`) authenticate
 * `Bearer tat_…` themselves; the liveness list is read with the application's API token.
 */
@Controller('api/v1/oap/attestations')
export class AttestationsController {
  constructor(
    private readonly submitAttestation: SubmitAttestation,
    private readonly recordHeartbeat: RecordHeartbeat,
    private readonly attestations: AttestationsRepository,
    private readonly attesters: AttestersRepository,
    private readonly clock: Clock,
  ) {}

  /** 201 for a new attestation, 200 for an idempotent replay (same body, same receipt). */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary:
      'Submit an attestation (trusted attester token, attestations:submit; escalations:create to escalate). Replay of attestation_id: 200 with the original receipt; same id, different body: 409 attestation_id_reused; lower or repeated sequence_number: 409 sequence_number_not_monotonic',
    response:
      'attestation {id (att_…), object, attestation_id, received_at, sequence_number, sequence_gap, expected_sequence_number, decision, status, idempotent_replay}, receipt (EdDSA JWS, typ oap+jwt, iss_role witness), escalation {status, approval_ttl_at, decision_url, session_token} when escalated, counter_proposals when a human countered an earlier attestation of the agent class',
    errors: [400, 401, 403, 409, 422],
  })
  @Post()
  @AttesterRoute('attestations:submit')
  @ApiResponseOf(SubmittedAttestationResponse, { status: 201 })
  @ApiResponseOf(SubmittedAttestationResponse, { status: 200 })
  async submit(
    @CurrentAttester() caller: AttesterPrincipal,
    @Body() body: SubmitAttestationBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SubmittedAttestationResponse> {
    const result = await this.submitAttestation.execute(caller.attester, toCommand(body));
    void reply.status(result.idempotentReplay ? 200 : 201);
    if (result.idempotentReplay) void reply.header('idempotent-replayed', 'true');
    const escalation = escalationView(result.attestation, result.escalation);
    return {
      attestation: attestationView(result.attestation, result.idempotentReplay),
      receipt: result.attestation.receipt,
      ...(escalation ? { escalation } : {}),
      ...(result.counterProposals.length > 0 ? { counter_proposals: result.counterProposals.map(counterView) } : {}),
    };
  }

  /** Liveness of the calling engine; 200 with the recorded heartbeat. */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Engine liveness (trusted attester token, attestations:heartbeat); body {status?: ok|degraded, engine_version?}',
    response: 'heartbeat {attester_id, received_at, status}',
    errors: [400, 401, 403, 422],
  })
  @Post('heartbeat')
  @HttpCode(200)
  @AttesterRoute('attestations:heartbeat')
  @ApiResponseOf(HeartbeatResponse)
  async heartbeat(@CurrentAttester() caller: AttesterPrincipal, @Body() body: HeartbeatBody): Promise<HeartbeatResponse> {
    const attester = await this.recordHeartbeat.execute(caller.attester, { status: body.status, engineVersion: body.engine_version });
    return { heartbeat: { attester_id: attester.id, received_at: attester.lastHeartbeatAt?.toISOString(), status: body.status ?? 'ok' } };
  }

  /** API token: every attester of the application with its last heartbeat and a `silent` flag. */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: "Liveness of the application's attesters (API token); silent when no heartbeat within silent_after_seconds (default 300)",
    response: 'Page of {attester_id, name, status, last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}',
  })
  @Get('heartbeat')
  @ApiResponseOf(AttesterLivenessResponse, { page: true })
  async liveness(@CurrentPrincipal() principal: Principal, @Query() query: LivenessQuery): Promise<Page<AttesterLivenessResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const silentAfter = query.silent_after_seconds ?? DEFAULT_SILENT_AFTER_SECONDS;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.attesters.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (a) => ({ attester_id: a.id, name: a.name, status: a.status, ...livenessView(a, now, silentAfter) }),
      (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }),
    );
  }

  /**
   * The engine reads back one of its attestations (e.g. to learn an escalation's outcome and
   * fetch the resolution receipt). Another application's id answers 404 like an unknown one.
   */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Read back an attestation (trusted attester token of the same application)',
    response: 'attestation (all fields, resolved_at, counter_proposal), receipt, resolution_receipt',
    errors: [401, 403, 404],
  })
  @Get(':attestation_id')
  @AttesterRoute('attestations:submit')
  @ApiResponseOf(AttestationReadResponse)
  async get(@CurrentAttester() caller: AttesterPrincipal, @Param('attestation_id') id: string): Promise<AttestationReadResponse> {
    const found = isIdOf('attestation', id) ? await this.attestations.transaction((m) => this.attestations.findById(m, id)) : undefined;
    if (!found || found.applicationId !== caller.attester.applicationId) {
      throw oversightError('attestation_not_found', 'Attestation not found', { attestation_id: id.slice(0, 64) });
    }
    return attestationDetailView(found);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import {
  ElevationRequestEnvelopeResponse,
  ElevationRequestResponse,
  TrustedAttesterEnvelopeResponse,
  TrustedAttesterResponse,
} from './attester.response';
import { oversightError } from '../oversight.errors';
import { type TrustedAttester } from './attester';
import { attesterView } from './attester.response';
import { ATTESTER_ID_PATTERN, CreateAttesterBody, refuseBodyFields, RequestElevationBody, RotateAttesterBody } from './attesters.dto';
import { AttestersRepository, type ElevationRequest } from './attesters.repository';
import { CreateAttester } from './use-cases/create-attester.use-case';
import { DestroyAttester } from './use-cases/destroy-attester.use-case';
import { RequestElevation } from './use-cases/request-elevation.use-case';
import { RotateAttester } from './use-cases/rotate-attester.use-case';
import { SuspendAttester } from './use-cases/suspend-attester.use-case';
import { UnsuspendAttester } from './use-cases/unsuspend-attester.use-case';

function elevationView(request: ElevationRequest): ElevationRequestResponse {
  return {
    id: request.id,
    object: 'elevation_request',
    attester_id: request.attesterId,
    permission: request.permission,
    rationale: request.rationale,
    status: request.status,
    created_at: request.createdAt.toISOString(),
    decided_at: request.decidedAt?.toISOString() ?? null,
  };
}

/** A malformed attester id can only name nothing: 404 like an unknown one. */
function checkedId(id: string): string {
  if (!ATTESTER_ID_PATTERN.test(id))
    throw oversightError('attester_not_found', 'Trusted attester not found', { attester_id: id.slice(0, 64) });
  return id;
}

/**
 * Trusted attesters of the calling application (API token). Tokens appear only in the create and
 * rotate responses; they are stored as SHA-256 digests.
 */
@Controller('api/v1/trusted_attesters')
export class AttestersController {
  constructor(
    private readonly attesters: AttestersRepository,
    private readonly clock: Clock,
    private readonly createAttester: CreateAttester,
    private readonly rotateAttester: RotateAttester,
    private readonly suspendAttester: SuspendAttester,
    private readonly unsuspendAttester: UnsuspendAttester,
    private readonly destroyAttester: DestroyAttester,
    private readonly requestElevation: RequestElevation,
  ) {}

  private view(attester: TrustedAttester): Record<string, unknown> {
    return attesterView(attester, this.clock.now());
  }

  /** 201; the only response that carries the token (besides rotate). */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Create a trusted attester (API token); the tat_ token is shown only here',
    response:
      'Trusted attester: id (tatr_…), object, application_id, name, status (active|suspended|destroyed), permissions, scoped_application_id, previous_token_expires_at, created_at, rotated_at, suspended_at, destroyed_at, liveness {last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}, plus token (tat_<region>_<base64url(32)>)',
    errors: [400, 401, 422],
  })
  @Post()
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAttesterBody): Promise<Record<string, unknown>> {
    const { attester, token } = await this.createAttester.execute({
      applicationId: principal.applicationId,
      name: body.name,
      permissions: body.permissions,
      scopedToApplication: body.scoped_to_application ?? false,
    });
    return { trusted_attester: { ...this.view(attester), token } };
  }

  @ApiDoc({ tag: 'OAP Oversight', summary: "List the application's trusted attesters", response: 'Page of trusted attesters' })
  @Get()
  @ApiResponseOf(TrustedAttesterResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.attesters.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (a) => this.view(a),
      (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }),
    );
  }

  /** The application's elevation queue (pending and decided requests, oldest first). */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: "The application's elevation queue (requests for revocations:trigger)",
    response:
      'Page of elevation_request: id, object, attester_id, permission, rationale, status (pending|granted|rejected), created_at, decided_at',
  })
  @Get('elevation_requests')
  @ApiResponseOf(ElevationRequestResponse, { page: true })
  async listElevations(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<ElevationRequestResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.attesters.listElevations(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, elevationView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }));
  }

  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Read a trusted attester',
    response:
      'Trusted attester: id (tatr_…), object, application_id, name, status (active|suspended|destroyed), permissions, scoped_application_id, previous_token_expires_at, created_at, rotated_at, suspended_at, destroyed_at, liveness {last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}',
    errors: [401, 404],
  })
  @Get(':attester_id')
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('attester_id') id: string): Promise<Record<string, unknown>> {
    const attester = await this.attesters.transaction((m) => this.attesters.findOwned(m, principal.applicationId, checkedId(id)));
    if (!attester) throw oversightError('attester_not_found', 'Trusted attester not found', { attester_id: id });
    return { trusted_attester: this.view(attester) };
  }

  /** New token in the current slot; the old one works for `overlap_seconds` more (default 24 h). */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Rotate the token: new token in the current slot, the old one valid for overlap_seconds (default 86400)',
    response:
      'Trusted attester: id (tatr_…), object, application_id, name, status (active|suspended|destroyed), permissions, scoped_application_id, previous_token_expires_at, created_at, rotated_at, suspended_at, destroyed_at, liveness {last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}, plus the new token',
    errors: [400, 401, 404, 410, 422],
  })
  @Post(':attester_id/rotate')
  @HttpCode(200)
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Param('attester_id') id: string,
    @Body() body: RotateAttesterBody,
  ): Promise<Record<string, unknown>> {
    const { attester, token } = await this.rotateAttester.execute(principal.applicationId, checkedId(id), body.overlap_seconds);
    return { trusted_attester: { ...this.view(attester), token } };
  }

  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Suspend: the attester then gets 403 attester_suspended (distinct from 401 invalid_token)',
    response: 'Trusted attester',
    errors: [401, 404, 410],
  })
  @Post(':attester_id/suspend')
  @HttpCode(200)
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async suspend(
    @CurrentPrincipal() principal: Principal,
    @Param('attester_id') id: string,
    @Body() body: unknown,
  ): Promise<Record<string, unknown>> {
    refuseBodyFields(body);
    return { trusted_attester: this.view(await this.suspendAttester.execute(principal.applicationId, checkedId(id))) };
  }

  @ApiDoc({ tag: 'OAP Oversight', summary: 'Reverse a suspension', response: 'Trusted attester', errors: [401, 404, 410] })
  @Post(':attester_id/unsuspend')
  @HttpCode(200)
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async unsuspend(
    @CurrentPrincipal() principal: Principal,
    @Param('attester_id') id: string,
    @Body() body: unknown,
  ): Promise<Record<string, unknown>> {
    refuseBodyFields(body);
    return { trusted_attester: this.view(await this.unsuspendAttester.execute(principal.applicationId, checkedId(id))) };
  }

  /** Permanent; both token slots are cleared. */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Destroy permanently; both token slots cleared',
    response: 'Trusted attester (status destroyed)',
    errors: [401, 404, 410],
  })
  @Delete(':attester_id')
  @ApiResponseOf(TrustedAttesterEnvelopeResponse)
  async destroy(@CurrentPrincipal() principal: Principal, @Param('attester_id') id: string): Promise<Record<string, unknown>> {
    return { trusted_attester: this.view(await this.destroyAttester.execute(principal.applicationId, checkedId(id))) };
  }

  /** 201; queues the rationale for an operator. */
  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Queue a rationale for an operator to grant revocations:trigger',
    response: 'elevation_request',
    errors: [400, 401, 404, 409, 410, 422],
  })
  @Post(':attester_id/elevation_requests')
  @ApiResponseOf(ElevationRequestEnvelopeResponse)
  async elevate(
    @CurrentPrincipal() principal: Principal,
    @Param('attester_id') id: string,
    @Body() body: RequestElevationBody,
  ): Promise<ElevationRequestEnvelopeResponse> {
    return {
      elevation_request: elevationView(
        await this.requestElevation.execute(principal.applicationId, checkedId(id), body.permission, body.rationale),
      ),
    };
  }
}

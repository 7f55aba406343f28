import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import type { MemberMove } from './collaboration';
import { AttachAgreementBody, CreateCollaborationBody, InviteBody, ListCollaborationsQuery, ListMembersQuery } from './collaborations.dto';
import { CollaborationsRepository, type AttachedAgreement } from './collaborations.repository';
import {
  CollaborationAgreementResponse,
  CollaborationEventResponse,
  CollaborationMemberResponse,
  CollaborationResponse,
  collaborationView,
  memberView,
} from './collaborations.response';
import { CollaborationsService, checkedInstant, checkedSeq, partyOf } from './collaborations.service';

function attachedView(a: AttachedAgreement): CollaborationAgreementResponse {
  return {
    object: 'collaboration_agreement',
    agreement_id: a.agreementId,
    title: a.title,
    status: a.status,
    attached_by: a.attachedBy,
    attached_at: a.attachedAt.toISOString(),
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    answers: a.answers.map((x) => ({ role: x.role, outcome: x.outcome, decided_at: x.decidedAt?.toISOString() ?? null })),
  };
}

/**
 * Agree: collaborations, shared spaces of applications and people with roles (owner, member,
 * viewer), invitations and the agreements they hold. Applications call with their API token; a
 * person reads and answers their own invitations with their own access token.
 */
@Controller('api/v1/collaborations')
@Auth('api_token', 'access_token')
export class CollaborationsController {
  constructor(
    private readonly service: CollaborationsService,
    private readonly collaborations: CollaborationsRepository,
  ) {}

  @Post()
  @Auth('api_token')
  @ApiDoc({ tag: 'Agree', summary: 'Create a collaboration; the calling application is its owner', errors: [400, 401, 403, 422] })
  @ApiResponseOf(CollaborationResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCollaborationBody): Promise<CollaborationResponse> {
    const { collaboration, member } = await this.service.create(principal, body.name);
    return collaborationView(collaboration, member);
  }

  @Get()
  @ApiDoc({
    tag: 'Agree',
    summary: 'The collaborations the caller (an application, or a person with their access token) is invited to or a member of',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(CollaborationResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListCollaborationsQuery): Promise<Page<CollaborationResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.collaborations.listFor(
      partyOf(principal),
      query.status,
      limit + 1,
      after ? { createdAt: checkedInstant(after.created_at), id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (r) => collaborationView(r.collaboration, r.member),
      (r) => ({ created_at: r.collaboration.createdAt.toISOString(), id: r.collaboration.id }),
    );
  }

  @Get(':collaboration_id')
  @ApiDoc({
    tag: 'Agree',
    summary: 'Read a collaboration and the caller’s role in it (a party not in it gets 404)',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(CollaborationResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('collaboration_id') id: string): Promise<CollaborationResponse> {
    const { collaboration, member } = await this.service.visible(principal, id);
    return collaborationView(collaboration, member);
  }

  @Get(':collaboration_id/members')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The collaboration’s parties and invitations, with their roles and statuses',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(CollaborationMemberResponse, { page: true })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Query() query: ListMembersQuery,
  ): Promise<Page<CollaborationMemberResponse>> {
    await this.service.visible(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'party_id']) : undefined;
    const rows = await this.collaborations.members(
      id,
      query.status,
      limit + 1,
      after ? { createdAt: checkedInstant(after.created_at), partyId: after.party_id } : undefined,
    );
    return toPage(rows, limit, memberView, (m) => ({ created_at: m.createdAt.toISOString(), party_id: m.partyId }));
  }

  @Post(':collaboration_id/invitations')
  @Auth('api_token')
  @ApiDoc({
    tag: 'Agree',
    summary:
      'Invite an application (application_id) or a person (person_id) as member or viewer (owner only); the invited party answers itself',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(CollaborationMemberResponse, { status: 201 })
  async invite(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Body() body: InviteBody,
  ): Promise<CollaborationMemberResponse> {
    return memberView(
      await this.service.invite(principal, id, { applicationId: body.application_id, personId: body.person_id, role: body.role }),
    );
  }

  @Post(':collaboration_id/members/:party_id/accept')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Agree',
    summary: 'Accept an invitation: by the invited application (API token) or the invited person (their access token)',
    errors: [401, 403, 404, 409, 421],
  })
  @ApiResponseOf(CollaborationMemberResponse)
  async accept(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Param('party_id') partyId: string,
  ): Promise<CollaborationMemberResponse> {
    return this.moveFor(principal, id, partyId, 'accept');
  }

  @Post(':collaboration_id/members/:party_id/decline')
  @HttpCode(200)
  @ApiDoc({ tag: 'Agree', summary: 'Decline an invitation (by the invited party itself)', errors: [401, 403, 404, 409, 421] })
  @ApiResponseOf(CollaborationMemberResponse)
  async decline(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Param('party_id') partyId: string,
  ): Promise<CollaborationMemberResponse> {
    return this.moveFor(principal, id, partyId, 'decline');
  }

  @Post(':collaboration_id/members/:party_id/revoke')
  @HttpCode(200)
  @Auth('api_token')
  @ApiDoc({
    tag: 'Agree',
    summary: 'Revoke an invitation or a membership (owner only; the owner cannot be revoked)',
    errors: [401, 403, 404, 409, 421],
  })
  @ApiResponseOf(CollaborationMemberResponse)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Param('party_id') partyId: string,
  ): Promise<CollaborationMemberResponse> {
    return this.moveFor(principal, id, partyId, 'revoke');
  }

  @Post(':collaboration_id/agreements')
  @Auth('api_token')
  @ApiDoc({
    tag: 'Agree',
    summary: 'Attach one of the calling application’s agreements (owner or member)',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(CollaborationAgreementResponse, { status: 201 })
  async attach(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Body() body: AttachAgreementBody,
  ): Promise<CollaborationAgreementResponse> {
    await this.service.attach(principal, id, body.agreement_id);
    const [attached] = await this.collaborations.agreements(id, 1, undefined, body.agreement_id);
    return attachedView(attached!);
  }

  @Get(':collaboration_id/agreements')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The collaboration’s agreements in attachment order, each with its status and its signers’ answers',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(CollaborationAgreementResponse, { page: true })
  async agreements(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<CollaborationAgreementResponse>> {
    await this.service.visible(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['attached_at', 'agreement_id']) : undefined;
    const rows = await this.collaborations.agreements(
      id,
      limit + 1,
      after ? { attachedAt: checkedInstant(after.attached_at), agreementId: after.agreement_id } : undefined,
    );
    return toPage(rows, limit, attachedView, (a) => ({ attached_at: a.attachedAt.toISOString(), agreement_id: a.agreementId }));
  }

  @Get(':collaboration_id/history')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The collaboration’s history: creation, invitations and their answers, revocations, attached agreements (oldest first)',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(CollaborationEventResponse, { page: true })
  async history(
    @CurrentPrincipal() principal: Principal,
    @Param('collaboration_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<CollaborationEventResponse>> {
    await this.service.visible(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? checkedSeq(decodeCursor(query.cursor, ['seq']).seq) : undefined;
    const rows = await this.collaborations.events(id, limit + 1, after);
    return toPage(
      rows,
      limit,
      (e) => ({
        object: 'collaboration_event' as const,
        id: e.seq,
        type: e.type,
        actor: e.actor,
        subject: e.subject,
        created_at: e.createdAt.toISOString(),
      }),
      (e) => ({ seq: e.seq }),
    );
  }

  private async moveFor(principal: Principal, id: string, partyId: string, move: MemberMove): Promise<CollaborationMemberResponse> {
    return memberView(await this.service.move(principal, id, partyId, move));
  }
}

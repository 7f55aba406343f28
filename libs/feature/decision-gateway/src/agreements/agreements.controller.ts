import { Body, Controller, Get, HttpCode, Injectable, Param, Post, Query, Res } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import type { Agreement, AgreementParty } from './agreement';
import { CreateAgreementBody, ListAgreementsQuery, ProposeAmendmentBody } from './agreements.dto';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import {
  AgreementReceiptResponse,
  AgreementResponse,
  AmendmentResponse,
  agreementReceipt,
  agreementView,
  amendmentView,
} from './agreements.response';
import { ProposeAmendment } from './propose-amendment.use-case';
import { CreateAgreement } from './create-agreement.use-case';
import { WithdrawAgreement } from './withdraw-agreement.use-case';

/** Reads an agreement of the caller's application (another application's answers 404 like an unknown one). */
@Injectable()
export class AgreementReader {
  constructor(
    private readonly agreements: AgreementsRepository,
    private readonly config: PlatformConfig,
  ) {}

  async find(applicationId: string, id: string): Promise<{ agreement: Agreement; parties: AgreementParty[] }> {
    const agreement = isIdOf('agreement', id) ? await this.agreements.find(id, { applicationId }) : undefined;
    if (!agreement) throw agreementError('agreement_not_found', 'Agreement not found');
    return { agreement, parties: await this.agreements.parties(id) };
  }

  /** A page of the application's agreements (`multiParty`: those with two parties or more). */
  async list(applicationId: string, query: ListAgreementsQuery, multiParty: boolean): Promise<Page<AgreementResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    if (after && Number.isNaN(Date.parse(after.created_at)))
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.agreements.list(applicationId, {
      status: query.status,
      multiParty,
      limit: limit + 1,
      after: after ? { createdAt: after.created_at, id: after.id } : undefined,
    });
    const parties = await this.agreements.partiesOf(rows.map((a) => a.id));
    const documents = await this.agreements.documentsOf(rows.map((a) => a.documentSha256));
    const amendments = await this.agreements.amendmentCounts(rows.map((a) => a.id));
    return toPage(
      rows,
      limit,
      (a) =>
        agreementView(
          a,
          parties.get(a.id) ?? [],
          documents.get(a.documentSha256) ?? { mediaType: 'application/octet-stream', sizeBytes: 0 },
          this.config.publicBaseUrl,
          amendments.get(a.id) ?? 0,
        ),
      (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }),
    );
  }

  async view(agreement: Agreement, parties: AgreementParty[]): Promise<AgreementResponse> {
    const document = await this.agreements.findDocument(agreement.documentSha256);
    const amendments = (await this.agreements.amendments(agreement.id)).length;
    return agreementView(
      agreement,
      parties,
      { mediaType: document?.mediaType ?? 'application/octet-stream', sizeBytes: document?.sizeBytes ?? 0 },
      this.config.publicBaseUrl,
      amendments,
    );
  }

  /** The receipt: the signatures, and once amended every amendment with its votes' receipts. */
  async receipt(agreement: Agreement, parties: AgreementParty[]): Promise<AgreementReceiptResponse> {
    const amendments = await this.agreements.amendments(agreement.id);
    const answers = await this.agreements.amendmentPartiesOf(amendments.map((a) => a.id));
    return agreementReceipt(
      agreement,
      parties,
      amendments.map((amendment) => ({ amendment, answers: answers.get(amendment.id) ?? [] })),
    );
  }

  /** A page of the agreement's amendments, by number. */
  async amendments(agreement: Agreement, parties: AgreementParty[], query: PageQuery): Promise<Page<AmendmentResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['number']) : undefined;
    const afterNumber = after ? Number(after.number) : undefined;
    if (afterNumber !== undefined && !Number.isSafeInteger(afterNumber))
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.agreements.amendments(agreement.id, { limit: limit + 1, afterNumber });
    const answers = await this.agreements.amendmentPartiesOf(rows.map((a) => a.id));
    const documents = await this.agreements.documentsOf(rows.map((a) => a.documentSha256));
    return toPage(
      rows,
      limit,
      (a) =>
        amendmentView(
          a,
          answers.get(a.id) ?? [],
          parties,
          documents.get(a.documentSha256) ?? { mediaType: 'application/octet-stream', sizeBytes: 0 },
        ),
      (a) => ({ number: String(a.number) }),
    );
  }

  async amendment(agreement: Agreement, parties: AgreementParty[], amendmentId: string): Promise<AmendmentResponse> {
    const amendment = isIdOf('agreement_amendment', amendmentId) ? await this.agreements.findAmendment(amendmentId) : undefined;
    if (!amendment || amendment.agreementId !== agreement.id) throw agreementError('amendment_not_found', 'Amendment not found');
    const answers = (await this.agreements.amendmentPartiesOf([amendment.id])).get(amendment.id) ?? [];
    const document = await this.agreements.findDocument(amendment.documentSha256);
    return amendmentView(amendment, answers, parties, {
      mediaType: document?.mediaType ?? 'application/octet-stream',
      sizeBytes: document?.sizeBytes ?? 0,
    });
  }
}

/** Shared by the two path families: creates, reads, withdraws and answers the receipt. */
abstract class AgreementRoutes {
  constructor(
    protected readonly creator: CreateAgreement,
    protected readonly reader: AgreementReader,
    protected readonly withdrawer: WithdrawAgreement,
    protected readonly amender: ProposeAmendment,
  ) {}

  protected async createFor(principal: Principal, body: CreateAgreementBody, multiParty: boolean): Promise<AgreementResponse> {
    const created = await this.creator.execute(principal, body, { multiParty });
    return this.reader.view(created.agreement, created.parties);
  }

  protected async read(principal: Principal, id: string): Promise<AgreementResponse> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    return this.reader.view(agreement, parties);
  }

  protected async receipt(principal: Principal, id: string, reply: FastifyReply): Promise<string> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    void reply.header('content-type', 'application/json; charset=utf-8');
    return canonicalJson((await this.reader.receipt(agreement, parties)) as unknown as Record<string, unknown>);
  }

  protected async proposeFor(principal: Principal, id: string, body: ProposeAmendmentBody): Promise<AmendmentResponse> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    const proposed = await this.amender.execute(agreement, parties, body);
    return this.reader.amendment(agreement, parties, proposed.amendment.id);
  }

  protected async amendmentsOf(principal: Principal, id: string, query: PageQuery): Promise<Page<AmendmentResponse>> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    return this.reader.amendments(agreement, parties, query);
  }

  protected async amendmentOf(principal: Principal, id: string, amendmentId: string): Promise<AmendmentResponse> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    return this.reader.amendment(agreement, parties, amendmentId);
  }

  protected async withdrawFor(principal: Principal, id: string): Promise<AgreementResponse> {
    if (!isIdOf('agreement', id)) throw agreementError('agreement_not_found', 'Agreement not found');
    await this.withdrawer.execute(principal.applicationId, id);
    return this.read(principal, id);
  }
}

/**
 * Agree: agreements between people, each party signing on its own hosted signing page in its
 * home region, binding once the quorum of signatures is reached.
 */
@Controller('api/v1/agreements')
@Auth('api_token')
export class AgreementsController extends AgreementRoutes {
  constructor(creator: CreateAgreement, reader: AgreementReader, withdrawer: WithdrawAgreement, amender: ProposeAmendment) {
    super(creator, reader, withdrawer, amender);
  }

  @Post()
  @ApiDoc({
    tag: 'Agree',
    summary: 'Create an agreement: a document, its parties with roles and a quorum; each signer gets a signing page in their home region',
    errors: [400, 401, 403, 422, 503],
  })
  @ApiResponseOf(AgreementResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAgreementBody): Promise<AgreementResponse> {
    return this.createFor(principal, body, false);
  }

  @Get()
  @ApiDoc({ tag: 'Agree', summary: 'The application’s agreements, oldest first, optionally of one status', errors: [400, 401, 403] })
  @ApiResponseOf(AgreementResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListAgreementsQuery): Promise<Page<AgreementResponse>> {
    return this.reader.list(principal.applicationId, query, false);
  }

  @Get(':agreement_id')
  @ApiDoc({ tag: 'Agree', summary: 'Read an agreement: status, quorum, each party’s outcome and receipt', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.read(principal, id);
  }

  @Get(':agreement_id/receipt')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The agreement’s receipt: the set of signatures, canonical JSON, verifiable offline (svc-receipt verify-agreement)',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(AgreementReceiptResponse)
  async getReceipt(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return this.receipt(principal, id, reply);
  }

  @Post(':agreement_id/withdraw')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Agree',
    summary: 'Withdraw an agreement before its outcome (agreement.withdrawn); later answers are refused',
    errors: [401, 403, 404, 409, 421],
  })
  @ApiResponseOf(AgreementResponse)
  async withdraw(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.withdrawFor(principal, id);
  }

  @Post(':agreement_id/amendments')
  @ApiDoc({
    tag: 'Agree',
    summary:
      'Propose an amendment of an active agreement: a new document each party votes on (sign, decline, counter) on a page in their home region, adopted by the agreement’s quorum (agreement.amended)',
    errors: [400, 401, 403, 404, 409, 421, 422, 503],
  })
  @ApiResponseOf(AmendmentResponse, { status: 201 })
  async propose(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Body() body: ProposeAmendmentBody,
  ): Promise<AmendmentResponse> {
    return this.proposeFor(principal, id, body);
  }

  @Get(':agreement_id/amendments')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The amendments of an agreement, oldest first, each with its status and its parties’ votes',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(AmendmentResponse, { page: true })
  async listAmendments(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<AmendmentResponse>> {
    return this.amendmentsOf(principal, id, query);
  }

  @Get(':agreement_id/amendments/:amendment_id')
  @ApiDoc({
    tag: 'Agree',
    summary: 'Read an amendment: its document, status and each party’s vote and receipt',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(AmendmentResponse)
  async getAmendment(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Param('amendment_id') amendmentId: string,
  ): Promise<AmendmentResponse> {
    return this.amendmentOf(principal, id, amendmentId);
  }
}

/** The same agreements under the spec's `/multi_party_agreements` family: at least two parties. */
@Controller('api/v1/multi_party_agreements')
@Auth('api_token')
export class MultiPartyAgreementsController extends AgreementRoutes {
  constructor(creator: CreateAgreement, reader: AgreementReader, withdrawer: WithdrawAgreement, amender: ProposeAmendment) {
    super(creator, reader, withdrawer, amender);
  }

  @Post()
  @ApiDoc({
    tag: 'Agree',
    summary: 'Create a multi-party agreement (two parties or more) with a quorum (all, majority, threshold)',
    errors: [400, 401, 403, 422, 503],
  })
  @ApiResponseOf(AgreementResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAgreementBody): Promise<AgreementResponse> {
    return this.createFor(principal, body, true);
  }

  @Get()
  @ApiDoc({
    tag: 'Agree',
    summary: 'The application’s multi-party agreements (two parties or more), oldest first, optionally of one status',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(AgreementResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListAgreementsQuery): Promise<Page<AgreementResponse>> {
    return this.reader.list(principal.applicationId, query, true);
  }

  @Get(':agreement_id')
  @ApiDoc({ tag: 'Agree', summary: 'Read a multi-party agreement', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.read(principal, id);
  }

  @Get(':agreement_id/receipt')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The multi-party agreement’s receipt (the set of signatures, canonical JSON)',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(AgreementReceiptResponse)
  async getReceipt(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return this.receipt(principal, id, reply);
  }

  @Post(':agreement_id/withdraw')
  @HttpCode(200)
  @ApiDoc({ tag: 'Agree', summary: 'Withdraw a multi-party agreement before its outcome', errors: [401, 403, 404, 409, 421] })
  @ApiResponseOf(AgreementResponse)
  async withdraw(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.withdrawFor(principal, id);
  }

  @Post(':agreement_id/amendments')
  @ApiDoc({
    tag: 'Agree',
    summary:
      'Propose an amendment of an active multi-party agreement: a new document each party votes on (sign, decline, counter) on a page in their home region, adopted by the agreement’s quorum (agreement.amended)',
    errors: [400, 401, 403, 404, 409, 421, 422, 503],
  })
  @ApiResponseOf(AmendmentResponse, { status: 201 })
  async propose(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Body() body: ProposeAmendmentBody,
  ): Promise<AmendmentResponse> {
    return this.proposeFor(principal, id, body);
  }

  @Get(':agreement_id/amendments')
  @ApiDoc({
    tag: 'Agree',
    summary: 'The amendments of an multi-party agreement, oldest first, each with its status and its parties’ votes',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(AmendmentResponse, { page: true })
  async listAmendments(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<AmendmentResponse>> {
    return this.amendmentsOf(principal, id, query);
  }

  @Get(':agreement_id/amendments/:amendment_id')
  @ApiDoc({
    tag: 'Agree',
    summary: 'Read an amendment: its document, status and each party’s vote and receipt',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(AmendmentResponse)
  async getAmendment(
    @CurrentPrincipal() principal: Principal,
    @Param('agreement_id') id: string,
    @Param('amendment_id') amendmentId: string,
  ): Promise<AmendmentResponse> {
    return this.amendmentOf(principal, id, amendmentId);
  }
}

import { Body, Controller, Get, Headers, HttpCode, Injectable, Param, Post, Res } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import type { Agreement, AgreementParty } from './agreement';
import { CreateAgreementBody } from './agreements.dto';
import { agreementError } from './agreements.errors';
import { AgreementsRepository } from './agreements.repository';
import { AgreementReceiptResponse, AgreementResponse, agreementReceipt, agreementView } from './agreements.response';
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

  async view(agreement: Agreement, parties: AgreementParty[]): Promise<AgreementResponse> {
    const document = await this.agreements.findDocument(agreement.documentSha256);
    return agreementView(agreement, parties, { mediaType: document?.mediaType ?? 'application/octet-stream', sizeBytes: document?.sizeBytes ?? 0 }, this.config.publicBaseUrl);
  }
}

function checkedIdempotencyKey(key: string | undefined): string | null {
  if (key === undefined) return null;
  if (key.length < 1 || key.length > 255) throw new DomainError('invalid', 'validation_failed', 'Idempotency-Key must be 1 to 255 characters', { field: 'Idempotency-Key' });
  return key;
}

/** Shared by the two path families: creates, reads, withdraws and answers the receipt. */
abstract class AgreementRoutes {
  constructor(
    protected readonly creator: CreateAgreement,
    protected readonly reader: AgreementReader,
    protected readonly withdrawer: WithdrawAgreement,
  ) {}

  protected async createFor(principal: Principal, body: CreateAgreementBody, multiParty: boolean, key: string | undefined, reply: FastifyReply): Promise<AgreementResponse> {
    const created = await this.creator.execute(principal, body, { multiParty, idempotencyKey: checkedIdempotencyKey(key) });
    if (!created.created) void reply.header('Idempotent-Replayed', 'true');
    return this.reader.view(created.agreement, created.parties);
  }

  protected async read(principal: Principal, id: string): Promise<AgreementResponse> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    return this.reader.view(agreement, parties);
  }

  protected async receipt(principal: Principal, id: string, reply: FastifyReply): Promise<string> {
    const { agreement, parties } = await this.reader.find(principal.applicationId, id);
    void reply.header('content-type', 'application/json; charset=utf-8');
    return canonicalJson(agreementReceipt(agreement, parties) as unknown as Record<string, unknown>);
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
  constructor(creator: CreateAgreement, reader: AgreementReader, withdrawer: WithdrawAgreement) {
    super(creator, reader, withdrawer);
  }

  @Post()
  @ApiDoc({
    tag: 'Agree',
    summary: 'Create an agreement: a document, its parties with roles and a quorum; each signer gets a signing page in their home region (Idempotency-Key supported)',
    errors: [400, 401, 403, 409, 422, 503],
    headers: ['Idempotency-Key'],
    replays: true,
  })
  @ApiResponseOf(AgreementResponse, { status: 201 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateAgreementBody,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AgreementResponse> {
    return this.createFor(principal, body, false, key, reply);
  }

  @Get(':agreement_id')
  @ApiDoc({ tag: 'Agree', summary: 'Read an agreement: status, quorum, each party’s outcome and receipt', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.read(principal, id);
  }

  @Get(':agreement_id/receipt')
  @ApiDoc({ tag: 'Agree', summary: 'The agreement’s receipt: the set of signatures, canonical JSON, verifiable offline (svc-receipt verify-agreement)', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementReceiptResponse)
  async getReceipt(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.receipt(principal, id, reply);
  }

  @Post(':agreement_id/withdraw')
  @HttpCode(200)
  @ApiDoc({ tag: 'Agree', summary: 'Withdraw an agreement before its outcome (agreement.withdrawn); later answers are refused', errors: [401, 403, 404, 409, 421] })
  @ApiResponseOf(AgreementResponse)
  async withdraw(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.withdrawFor(principal, id);
  }
}

/** The same agreements under the spec's `/multi_party_agreements` family: at least two parties. */
@Controller('api/v1/multi_party_agreements')
@Auth('api_token')
export class MultiPartyAgreementsController extends AgreementRoutes {
  constructor(creator: CreateAgreement, reader: AgreementReader, withdrawer: WithdrawAgreement) {
    super(creator, reader, withdrawer);
  }

  @Post()
  @ApiDoc({
    tag: 'Agree',
    summary: 'Create a multi-party agreement (two parties or more) with a quorum (all, majority, threshold) (Idempotency-Key supported)',
    errors: [400, 401, 403, 409, 422, 503],
    headers: ['Idempotency-Key'],
    replays: true,
  })
  @ApiResponseOf(AgreementResponse, { status: 201 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateAgreementBody,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AgreementResponse> {
    return this.createFor(principal, body, true, key, reply);
  }

  @Get(':agreement_id')
  @ApiDoc({ tag: 'Agree', summary: 'Read a multi-party agreement', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.read(principal, id);
  }

  @Get(':agreement_id/receipt')
  @ApiDoc({ tag: 'Agree', summary: 'The multi-party agreement’s receipt (the set of signatures, canonical JSON)', errors: [401, 403, 404, 421] })
  @ApiResponseOf(AgreementReceiptResponse)
  async getReceipt(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.receipt(principal, id, reply);
  }

  @Post(':agreement_id/withdraw')
  @HttpCode(200)
  @ApiDoc({ tag: 'Agree', summary: 'Withdraw a multi-party agreement before its outcome', errors: [401, 403, 404, 409, 421] })
  @ApiResponseOf(AgreementResponse)
  async withdraw(@CurrentPrincipal() principal: Principal, @Param('agreement_id') id: string): Promise<AgreementResponse> {
    return this.withdrawFor(principal, id);
  }
}

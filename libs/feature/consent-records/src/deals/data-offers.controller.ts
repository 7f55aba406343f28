import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { DataDeals } from './data-deals.service';
import type { DataOffer } from './deals.repository';
import { DealsRepository } from './deals.repository';
import { offerSummaryView, offerView } from './deal-views';
import { AnswerBody, ChangeTermsBody, CreateOfferBody, UseCheckBody } from './deals.dto';
import { DataOfferResponse, DataOfferSummaryResponse, DataUseCheckResponse } from './deals.responses';

const OFFER_RESPONSE =
  'data_offer: id, object, application_id, license_id, subject {email, external_id}, state (draft|offered|countered|user_revised|accepted|declined|expired), terms, expires_at, record_id (the consent record of an accepted deal), accepted_at, history [{seq, move (create|send|counter|revise|accept|decline|expire), actor (application|person|platform), from, to, terms, note, at}], created_at, updated_at';
const MOVE_ERRORS = [400, 401, 403, 404, 409, 410, 421, 422];

/**
 * Protect surface: offers of data use to one person under a licence, and their moves (triggers
 * in `deal.ts`): send, counter (the party), revise (the person), accept and decline (either side,
 * on the other side's latest terms). The person's answers reach the API through the
 * application's server (`actor: person`). API token only.
 */
@Controller('api/v1/data_offers')
export class DataOffersController {
  constructor(
    private readonly deals: DataDeals,
    private readonly repository: DealsRepository,
    private readonly clock: Clock,
  ) {}

  @Post()
  @ApiDoc({
    tag: 'Data deals',
    summary: 'Draft an offer to one person under a licence',
    response: OFFER_RESPONSE,
    errors: [400, 401, 403, 404, 421, 422],
  })
  @ApiResponseOf(DataOfferResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateOfferBody): Promise<DataOfferResponse> {
    return this.view(await this.deals.createOffer(principal, body));
  }

  @Get()
  @ApiDoc({
    tag: 'Data deals',
    summary: 'List data offers (without their history)',
    response: 'Page of data_offer (no history): data, has_more, next_cursor',
  })
  @ApiResponseOf(DataOfferSummaryResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<DataOfferSummaryResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.repository.listOffers(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (r) => offerSummaryView(r, now),
      (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }),
    );
  }

  @Get(':offer_id')
  @ApiDoc({ tag: 'Data deals', summary: 'Read a data offer with its history', response: OFFER_RESPONSE })
  @ApiResponseOf(DataOfferResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('offer_id') offerId: string): Promise<DataOfferResponse> {
    return this.view(await this.deals.offer(principal, offerId));
  }

  @Post(':offer_id/send')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary: 'Send a draft offer to the person (draft → offered; open for the licence offer_window)',
    response: OFFER_RESPONSE,
    errors: MOVE_ERRORS,
  })
  @ApiResponseOf(DataOfferResponse)
  async send(@CurrentPrincipal() principal: Principal, @Param('offer_id') offerId: string): Promise<DataOfferResponse> {
    return this.view(await this.deals.move(principal, offerId, 'send', 'application'));
  }

  @Post(':offer_id/counter')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary: 'The party counters with other terms (offered | user_revised → countered)',
    response: OFFER_RESPONSE,
    errors: MOVE_ERRORS,
  })
  @ApiResponseOf(DataOfferResponse)
  async counter(
    @CurrentPrincipal() principal: Principal,
    @Param('offer_id') offerId: string,
    @Body() body: ChangeTermsBody,
  ): Promise<DataOfferResponse> {
    return this.view(await this.deals.move(principal, offerId, 'counter', 'application', body.terms, body.note));
  }

  @Post(':offer_id/revise')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary: "The person's revision of the terms, relayed by the application (offered | countered → user_revised)",
    response: OFFER_RESPONSE,
    errors: MOVE_ERRORS,
  })
  @ApiResponseOf(DataOfferResponse)
  async revise(
    @CurrentPrincipal() principal: Principal,
    @Param('offer_id') offerId: string,
    @Body() body: ChangeTermsBody,
  ): Promise<DataOfferResponse> {
    return this.view(await this.deals.move(principal, offerId, 'revise', 'person', body.terms, body.note));
  }

  @Post(':offer_id/accept')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary:
      "Accept the other side's latest terms (person: offered | countered; application: user_revised → accepted); writes the deal's consent record, whose receipt follows",
    response: OFFER_RESPONSE,
    errors: MOVE_ERRORS,
  })
  @ApiResponseOf(DataOfferResponse)
  async accept(
    @CurrentPrincipal() principal: Principal,
    @Param('offer_id') offerId: string,
    @Body() body: AnswerBody,
  ): Promise<DataOfferResponse> {
    return this.view(await this.deals.move(principal, offerId, 'accept', body.actor, undefined, body.note));
  }

  @Post(':offer_id/decline')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary: 'Decline (person: any open state; application: user_revised → declined)',
    response: OFFER_RESPONSE,
    errors: MOVE_ERRORS,
  })
  @ApiResponseOf(DataOfferResponse)
  async decline(
    @CurrentPrincipal() principal: Principal,
    @Param('offer_id') offerId: string,
    @Body() body: AnswerBody,
  ): Promise<DataOfferResponse> {
    return this.view(await this.deals.move(principal, offerId, 'decline', body.actor, undefined, body.note));
  }

  /** Whether a use of the data (purpose, data category, recipient) is covered by the accepted deal now. */
  @Post(':offer_id/use_checks')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data deals',
    summary: 'Check a data use against the accepted deal',
    response:
      'data_use_check: object, offer_id, allowed, reason_code (deal_not_accepted|deal_term_ended|consent_withdrawn|consent_expired|purpose_not_agreed|data_category_not_agreed|recipient_not_agreed) | null, record_id',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(DataUseCheckResponse)
  async checkUse(
    @CurrentPrincipal() principal: Principal,
    @Param('offer_id') offerId: string,
    @Body() body: UseCheckBody,
  ): Promise<DataUseCheckResponse> {
    const { offer, refusal } = await this.deals.checkUse(principal, offerId, body);
    return { object: 'data_use_check', offer_id: offer.id, allowed: refusal === null, reason_code: refusal, record_id: offer.recordId };
  }

  private async view(offer: DataOffer): Promise<DataOfferResponse> {
    return offerView(offer, await this.repository.movesOf(offer.id), this.clock.now());
  }
}

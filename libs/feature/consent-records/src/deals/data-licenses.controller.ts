import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { DataDeals } from './data-deals.service';
import { licenseView } from './deal-views';
import { DealsRepository } from './deals.repository';
import { CreateLicenseBody } from './deals.dto';
import { DataLicenseResponse } from './deals.responses';

const LICENSE_RESPONSE =
  'data_license: id, object, application_id, name, flow_id, terms {purposes, data_categories, duration, price {amount, currency} | null, recipients [{party_id, name}]}, offer_window, created_at';

/** Protect surface: data licences, the most a party asks to use under one of its flows (immutable). API token only. */
@Controller('api/v1/data_licenses')
export class DataLicensesController {
  constructor(
    private readonly deals: DataDeals,
    private readonly repository: DealsRepository,
  ) {}

  @Post()
  @ApiDoc({
    tag: 'Data deals',
    summary: 'Publish a data licence (immutable; offers are made under it)',
    response: LICENSE_RESPONSE,
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(DataLicenseResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateLicenseBody): Promise<DataLicenseResponse> {
    return licenseView(await this.deals.createLicense(principal, body));
  }

  @Get()
  @ApiDoc({ tag: 'Data deals', summary: 'List data licences', response: 'Page of data_license: data, has_more, next_cursor' })
  @ApiResponseOf(DataLicenseResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<DataLicenseResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.repository.listLicenses(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, licenseView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }));
  }

  @Get(':license_id')
  @ApiDoc({ tag: 'Data deals', summary: 'Read a data licence', response: LICENSE_RESPONSE })
  @ApiResponseOf(DataLicenseResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('license_id') licenseId: string): Promise<DataLicenseResponse> {
    return licenseView(await this.deals.license(principal, licenseId));
  }
}

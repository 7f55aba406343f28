import { Body, Controller, Get, Param, Put, Query, Res } from '@nestjs/common';
import { commonError } from '@svc/errors';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { gatewayError } from '../gateway.errors';
import { ComplyService } from './comply.service';
import { ModuleChangeBody } from './comply.dto';
import { ChangeRequestResponse, changeRequestView, ModuleResponse, moduleView } from './comply.responses';
import { REGIMES } from './regimes';

/**
 * Comply: the application's regime modules (GDPR, UK GDPR, CCPA/CPRA, LGPD, PIPL) and what each
 * enforces. An enabled module's rules are checked when a flow version is activated.
 */
@Controller('api/v1/modules')
export class ModulesController {
  constructor(private readonly comply: ComplyService) {}

  @Get()
  @ApiDoc({
    tag: 'Comply',
    summary: 'Every regime module of the application: enabled or not, and the rules it enforces',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(ModuleResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['position']).position) : -1;
    if (!Number.isInteger(after) || after < -1 || after >= REGIMES.length)
      throw commonError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const modules = (await this.comply.modules(principal.applicationId))
      .map((module, position) => ({ module, position }))
      .filter((item) => item.position > after);
    return toPage(
      modules.slice(0, limit + 1),
      limit,
      (item) => moduleView(item.module),
      (item) => ({ position: item.position }),
    );
  }

  @Get(':regime')
  @ApiDoc({ tag: 'Comply', summary: 'One regime module of the application', errors: [401, 403, 404] })
  @ApiResponseOf(ModuleResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('regime') regime: string): Promise<Record<string, unknown>> {
    const module = (await this.comply.modules(principal.applicationId)).find((item) => item.regime === regime);
    if (!module) throw gatewayError('module_not_found', `No module ${regime}; one of ${REGIMES.join(', ')}`, { regime });
    return moduleView(module);
  }

  /**
   * Enables, disables or tightens a module. Needs the `change_modules` role; under four-eyes it
   * answers 202 with the change request a second approver decides, else 200 with the module.
   */
  @Put(':regime')
  @ApiDoc({
    tag: 'Comply',
    summary: 'Enable, disable or tighten a regime module (four-eyes: 202 with the change request)',
    response: 'The module (200), or the pending change request (202) when change_modules is under four-eyes',
    alsoAnswers: [202],
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(ModuleResponse)
  @ApiResponseOf(ChangeRequestResponse, { status: 202 })
  async change(
    @CurrentPrincipal() principal: Principal,
    @Param('regime') regime: string,
    @Body() body: ModuleChangeBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown>> {
    const submitted = await this.comply.changeModule(
      principal,
      regime,
      {
        enabled: body.enabled,
        minimum_age: body.minimum_age,
        retention_ceiling: body.retention_ceiling,
        sensitive_purposes: body.sensitive_purposes,
      },
      body.reason,
    );
    if (submitted.outcome === 'pending') {
      void reply.status(202);
      return changeRequestView(submitted.request);
    }
    return moduleView(submitted.result);
  }
}

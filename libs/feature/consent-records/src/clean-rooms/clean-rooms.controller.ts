import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { commonError } from '@svc/errors';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { CleanRoomComparisonResponse, CleanRoomResponse, cleanRoomView, comparisonView } from './clean-room.response';
import { AcceptCleanRoomBody, CleanRoomQuery, ProposeCleanRoomBody } from './clean-rooms.dto';
import type { CleanRoomStatus } from './clean-rooms.repository';
import { CleanRooms } from './clean-rooms.service';
import { DEFAULT_MIN_COHORT } from './suppression';

function afterSeq(cursor: string | undefined): number {
  const after = cursor ? Number(decodeCursor(cursor, ['seq']).seq) : 0;
  if (!Number.isSafeInteger(after) || after < 0)
    throw commonError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
  return after;
}

/** Comply: clean rooms between two applications of the region, counts only. */
@Controller('api/v1/clean_rooms')
export class CleanRoomsController {
  constructor(private readonly rooms: CleanRooms) {}

  @Post()
  @HttpCode(201)
  @ApiDoc({
    tag: 'Comply',
    summary: 'Propose a clean room to a partner application (its acceptance opens it)',
    errors: [400, 401, 403, 422],
  })
  @ApiResponseOf(CleanRoomResponse)
  async propose(@CurrentPrincipal() principal: Principal, @Body() body: ProposeCleanRoomBody): Promise<Record<string, unknown>> {
    const room = await this.rooms.propose(principal.applicationId, {
      name: body.name,
      partnerApplicationId: body.partner_application_id,
      purpose: body.purpose,
      minCohortSize: body.min_cohort_size ?? DEFAULT_MIN_COHORT,
    });
    return cleanRoomView(room, principal.applicationId);
  }

  @Get()
  @ApiDoc({ tag: 'Comply', summary: 'Clean rooms the application is a party of, oldest first', errors: [400, 401, 403] })
  @ApiResponseOf(CleanRoomResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: CleanRoomQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.rooms.repository.list(
      principal.applicationId,
      query.status as CleanRoomStatus | undefined,
      limit + 1,
      afterSeq(query.cursor),
    );
    return toPage(
      rows,
      limit,
      (room) => cleanRoomView(room, principal.applicationId),
      (room) => ({ seq: room.seq }),
    );
  }

  @Get(':clean_room_id')
  @ApiDoc({ tag: 'Comply', summary: 'One clean room', errors: [401, 403, 404] })
  @ApiResponseOf(CleanRoomResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('clean_room_id') id: string): Promise<Record<string, unknown>> {
    return cleanRoomView(await this.rooms.room(principal.applicationId, id), principal.applicationId);
  }

  @Post(':clean_room_id/accept')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Comply',
    summary: 'The partner accepts, naming the consent purpose its audience is drawn from',
    errors: [400, 401, 403, 404, 409, 422],
  })
  @ApiResponseOf(CleanRoomResponse)
  async accept(
    @CurrentPrincipal() principal: Principal,
    @Param('clean_room_id') id: string,
    @Body() body: AcceptCleanRoomBody,
  ): Promise<Record<string, unknown>> {
    return cleanRoomView(await this.rooms.accept(principal.applicationId, id, body.purpose), principal.applicationId);
  }

  @Post(':clean_room_id/decline')
  @HttpCode(200)
  @ApiDoc({ tag: 'Comply', summary: 'The partner declines the clean room', errors: [401, 403, 404, 409] })
  @ApiResponseOf(CleanRoomResponse)
  async decline(@CurrentPrincipal() principal: Principal, @Param('clean_room_id') id: string): Promise<Record<string, unknown>> {
    return cleanRoomView(await this.rooms.decline(principal.applicationId, id), principal.applicationId);
  }

  @Post(':clean_room_id/comparisons')
  @HttpCode(201)
  @ApiDoc({
    tag: 'Comply',
    summary: 'Compare the consented audiences: counts only, below the minimum cohort suppressed',
    errors: [401, 403, 404, 409],
  })
  @ApiResponseOf(CleanRoomComparisonResponse)
  async compare(@CurrentPrincipal() principal: Principal, @Param('clean_room_id') id: string): Promise<Record<string, unknown>> {
    const room = await this.rooms.room(principal.applicationId, id);
    return comparisonView(await this.rooms.compare(principal.applicationId, id), room.minCohortSize);
  }

  @Get(':clean_room_id/comparisons')
  @ApiDoc({ tag: 'Comply', summary: 'Comparisons made in the clean room by either party, oldest first', errors: [400, 401, 403, 404] })
  @ApiResponseOf(CleanRoomComparisonResponse, { page: true })
  async comparisons(
    @CurrentPrincipal() principal: Principal,
    @Param('clean_room_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<Record<string, unknown>>> {
    const room = await this.rooms.room(principal.applicationId, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.rooms.repository.comparisons(room.id, limit + 1, afterSeq(query.cursor));
    return toPage(
      rows,
      limit,
      (row) => comparisonView(row, room.minCohortSize),
      (row) => ({ seq: row.seq }),
    );
  }
}

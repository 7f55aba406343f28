import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { webhookError } from '../webhooks.errors';
import { PUSH_DELIVERY_METHOD, streamView, type SsfStream } from './ssf-stream';
import {
  CreateStreamBody,
  OptionalStreamIdQuery,
  ReplaceStreamBody,
  StreamIdQuery,
  UpdateStreamBody,
  UpdateStreamStatusBody,
  VerifyStreamBody,
} from './ssf-streams.dto';
import { SsfStreams } from './ssf-streams.service';
import { StreamConfigurationResponse, StreamStatusResponse, TransmitterConfigurationResponse } from './ssf.response';

/** Paths of the stream management API (SSF 1.0 §8.1), published in the transmitter configuration. */
export const SSF_CONFIGURATION_PATH = '/api/v1/ssf/streams';
export const SSF_STATUS_PATH = '/api/v1/ssf/status';
export const SSF_VERIFICATION_PATH = '/api/v1/ssf/verify';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The Shared Signals transmitter (SSF 1.0): its metadata (anonymous) and the stream management API
 * (the application's API token; a stream of another application answers 404 like an unknown one).
 */
@Controller()
export class SsfStreamsController {
  constructor(
    private readonly streams: SsfStreams,
    private readonly config: PlatformConfig,
  ) {}

  @ApiDoc({
    summary:
      'Shared Signals transmitter configuration (SSF 1.0 §7.1): push delivery (RFC 8935) of CAEP session-revoked and token-claims-change SETs signed with the region key',
    tag: 'Shared Signals',
    errors: [],
  })
  @Get('.well-known/ssf-configuration')
  @Public()
  @ApiResponseOf(TransmitterConfigurationResponse)
  transmitter(): TransmitterConfigurationResponse {
    const base = this.config.publicBaseUrl;
    return {
      spec_version: '1_0',
      issuer: base,
      jwks_uri: `${base}/.well-known/jwks.json`,
      delivery_methods_supported: [PUSH_DELIVERY_METHOD],
      configuration_endpoint: `${base}${SSF_CONFIGURATION_PATH}`,
      status_endpoint: `${base}${SSF_STATUS_PATH}`,
      verification_endpoint: `${base}${SSF_VERIFICATION_PATH}`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6750' }],
      default_subjects: 'ALL',
    };
  }

  @ApiDoc({
    summary:
      'Create a Shared Signals stream (SSF 1.0 §8.1.1.1): push endpoint (https; development applications also http://localhost), optional Authorization header sent with every push, requested event types; Idempotency-Key supported',
    tag: 'Shared Signals',
    errors: [400, 401, 409, 422],
    headers: ['Idempotency-Key'],
    replays: true,
  })
  @Post('api/v1/ssf/streams')
  @ApiResponseOf(StreamConfigurationResponse, { status: 201 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateStreamBody,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown>> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey))
      throw webhookError('idempotency_key_invalid', 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key' });
    const { stream, replayed } = await this.streams.create(principal, body, idempotencyKey);
    reply.status(201);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return this.view(stream);
  }

  @ApiDoc({
    summary:
      'Read stream configurations (SSF 1.0 §8.1.1.2): with stream_id the one configuration, without it every stream of the application (an array)',
    tag: 'Shared Signals',
    errors: [400, 401, 404],
  })
  @Get('api/v1/ssf/streams')
  @ApiResponseOf(StreamConfigurationResponse, { isArray: true })
  async read(
    @CurrentPrincipal() principal: Principal,
    @Query() query: OptionalStreamIdQuery,
  ): Promise<Record<string, unknown> | Array<Record<string, unknown>>> {
    if (query.stream_id !== undefined) return this.view(await this.streams.get(principal, query.stream_id));
    return (await this.streams.list(principal)).map((stream) => this.view(stream));
  }

  @ApiDoc({
    summary: 'Update a stream (SSF 1.0 §8.1.1.3): the members given replace the stored ones',
    tag: 'Shared Signals',
    errors: [400, 401, 404, 422],
  })
  @Patch('api/v1/ssf/streams')
  @ApiResponseOf(StreamConfigurationResponse)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: UpdateStreamBody): Promise<Record<string, unknown>> {
    return this.view(await this.streams.update(principal, body.stream_id, body, false));
  }

  @ApiDoc({
    summary: "Replace a stream's receiver-supplied configuration (SSF 1.0 §8.1.1.4)",
    tag: 'Shared Signals',
    errors: [400, 401, 404, 422],
  })
  @Put('api/v1/ssf/streams')
  @ApiResponseOf(StreamConfigurationResponse)
  async replace(@CurrentPrincipal() principal: Principal, @Body() body: ReplaceStreamBody): Promise<Record<string, unknown>> {
    return this.view(await this.streams.update(principal, body.stream_id, body, true));
  }

  @ApiDoc({
    summary: 'Delete a stream and the SETs it has not received yet (SSF 1.0 §8.1.1.5)',
    tag: 'Shared Signals',
    response: 'No content',
    errors: [400, 401, 404],
  })
  @Delete('api/v1/ssf/streams')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Query() query: StreamIdQuery): Promise<void> {
    await this.streams.remove(principal, query.stream_id);
  }

  @ApiDoc({
    summary: "Read a stream's status (SSF 1.0 §8.1.2.1): enabled, paused or disabled",
    tag: 'Shared Signals',
    errors: [400, 401, 404],
  })
  @Get('api/v1/ssf/status')
  @ApiResponseOf(StreamStatusResponse)
  async status(@CurrentPrincipal() principal: Principal, @Query() query: StreamIdQuery): Promise<StreamStatusResponse> {
    return statusView(await this.streams.get(principal, query.stream_id));
  }

  @ApiDoc({
    summary: "Set a stream's status (SSF 1.0 §8.1.2.2): paused holds SETs until enabled; disabled drops them",
    tag: 'Shared Signals',
    errors: [400, 401, 404],
  })
  @Post('api/v1/ssf/status')
  @HttpCode(200)
  @ApiResponseOf(StreamStatusResponse)
  async setStatus(@CurrentPrincipal() principal: Principal, @Body() body: UpdateStreamStatusBody): Promise<StreamStatusResponse> {
    return statusView(await this.streams.setStatus(principal, body.stream_id, body.status, body.reason));
  }

  @ApiDoc({
    summary: 'Ask for a verification event (SSF 1.0 §8.1.4.2): a SET of type verification carrying state, pushed to the stream',
    tag: 'Shared Signals',
    response: 'No content',
    errors: [400, 401, 404, 409],
  })
  @Post('api/v1/ssf/verify')
  @HttpCode(204)
  async verify(@CurrentPrincipal() principal: Principal, @Body() body: VerifyStreamBody): Promise<void> {
    await this.streams.verify(principal, body.stream_id, body.state);
  }

  private view(stream: SsfStream): Record<string, unknown> {
    return streamView(stream, this.config.publicBaseUrl);
  }
}

function statusView(stream: SsfStream): StreamStatusResponse {
  return { stream_id: stream.id, status: stream.status, ...(stream.statusReason !== null ? { reason: stream.statusReason } : {}) };
}

import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { Metrics, Readiness } from '@svc/telemetry';
import type { FastifyReply } from 'fastify';
import { HealthResponse, ReadinessResponse } from './health.response';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './http-error-filter';
import { ApiDoc, ApiResponseOf } from './openapi/api-doc.decorator';

/** Liveness, readiness and Prometheus metrics, on every app. */
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: Readiness,
    private readonly metrics: Metrics,
  ) {}

  /** The process is up and its event loop answers. */
  @Get('healthz')
  @ApiDoc({ summary: 'Liveness: the process is up', errors: [] })
  @ApiResponseOf(HealthResponse)
  healthz(): HealthResponse {
    return { status: 'ok' };
  }

  /** Postgres and NATS reachable (plus any check a module registered); 503 otherwise. */
  @Get('readyz')
  @ApiDoc({ summary: 'Readiness: Postgres, NATS and module checks; 503 with Retry-After when one fails', errors: [503] })
  @ApiResponseOf(ReadinessResponse)
  @ApiResponseOf(ReadinessResponse, { status: 503 })
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const { ready, checks } = await this.readiness.evaluate();
    if (!ready) void reply.header('retry-after', SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
    await reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ok' : 'unavailable', checks } satisfies ReadinessResponse);
  }

  @Get('metrics')
  @ApiDoc({ summary: 'Prometheus metrics (text exposition format); not routed by the public ingress', errors: [], produces: 'text/plain' })
  async render(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    await reply.header('content-type', contentType).send(body);
  }
}

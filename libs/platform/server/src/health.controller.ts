import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { Metrics, Readiness } from '@svc/telemetry';
import type { FastifyReply } from 'fastify';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './http-error-filter';

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
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Postgres and NATS reachable (plus any check a module registered); 503 otherwise. */
  @Get('readyz')
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const { ready, checks } = await this.readiness.evaluate();
    if (!ready) void reply.header('retry-after', SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
    await reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ok' : 'unavailable', checks });
  }

  @Get('metrics')
  async render(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    await reply.header('content-type', contentType).send(body);
  }
}

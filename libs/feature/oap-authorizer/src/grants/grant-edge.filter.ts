import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import { LOGGER, mapError } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STEP_01_REQUEST_SHAPE } from './checks/step-01-request-shape';
import { STEP_02_AUTHENTICATION } from './checks/step-02-authentication';

/** Reason codes of the spec's credential/attestation tables: their own contract, not step 1. */
const TABLE_CODES =
  /^(agent_credential_|untrusted_agent_credential_issuer|agent_metadata_mismatch|agent_type_outside_taxonomy|agent_attestation_|agent_token_grant_mismatch|grant_region_mismatch|idempotency_)/;

/**
 * Error edge of the grant endpoint: steps 1 (request shape, 400/422) and 2 (authentication, 401)
 * of `POST /api/v1/grants` are refused here, and their envelopes say so with `denial_category: authorization_denied` and
 * `cascade_step` in `detail`. Everything else is the platform's envelope unchanged.
 */
@Catch()
export class GrantEdgeFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const mapped = mapError(error, String(request.id));
    if (mapped.status >= 500) this.logger.error({ err: error, request_id: request.id }, 'grant request failed');
    const code = mapped.envelope.reason_code ?? '';
    const isGrantRequest = request.method === 'POST' && (request.url.split('?', 1)[0] ?? '').replace(/\/$/, '') === '/api/v1/grants';
    const step = !isGrantRequest
      ? undefined
      : mapped.status === 401
        ? STEP_02_AUTHENTICATION
        : (mapped.status === 400 || mapped.status === 422) && !TABLE_CODES.test(code)
          ? STEP_01_REQUEST_SHAPE
          : undefined;
    const envelope = step
      ? { ...mapped.envelope, detail: { ...mapped.envelope.detail, denial_category: step.category, cascade_step: step.step } }
      : mapped.envelope;
    if (reply.sent) return;
    for (const [name, value] of Object.entries(mapped.headers ?? {})) void reply.header(name, value);
    void reply.header('cache-control', 'no-store').status(mapped.status).send(envelope);
  }
}

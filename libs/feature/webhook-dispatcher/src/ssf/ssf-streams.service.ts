import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { newSetDeliveryId, newStreamId } from '../ids';
import { checkWebhookTarget, checkWebhookUrl } from '../subscriptions/webhook-url';
import { webhookError } from '../webhooks.errors';
import { SSF_VERIFICATION } from './security-events';
import { SetDeliveriesRepository } from './set-deliveries.repository';
import { SetDeliveryWorker } from './set-delivery-worker';
import { SetSigner } from './set-signer';
import { PUSH_DELIVERY_METHOD, type SsfStream, type StreamStatus } from './ssf-stream';
import { SsfStreamsRepository } from './ssf-streams.repository';

/** Streams one application may hold. */
export const MAX_STREAMS_PER_APPLICATION = 10;

/** The receiver-supplied part of a stream's configuration. */
export interface StreamInput {
  delivery: { method: string; endpoint_url: string; authorization_header?: string };
  events_requested: string[];
  description?: string;
}

/**
 * Stream management (SSF 1.0 §8.1): configuration, status and verification of the streams of the
 * caller's application (API token). The endpoint is checked like a webhook URL (https for
 * production, a public address) when configured, and again at every connection by the egress
 * policy when pushed to.
 */
@Injectable()
export class SsfStreams {
  constructor(
    private readonly streams: SsfStreamsRepository,
    private readonly deliveries: SetDeliveriesRepository,
    private readonly signer: SetSigner,
    private readonly worker: SetDeliveryWorker,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  /** Creates a stream (201), or answers the stream an earlier request with the same Idempotency-Key created. */
  async create(
    principal: Principal,
    input: StreamInput,
    idempotencyKey: string | undefined,
  ): Promise<{ stream: SsfStream; replayed: boolean }> {
    await this.checkDelivery(principal, input.delivery);
    const now = this.clock.now();
    const id = newStreamId();
    const stream: SsfStream = {
      id,
      applicationId: principal.applicationId,
      environment: principal.environment,
      audience: [principal.applicationId],
      eventsRequested: [...new Set(input.events_requested)],
      endpointUrl: checkWebhookUrl(input.delivery.endpoint_url, principal.environment),
      authorizationHeaderEnc: this.sealAuthorization(id, input.delivery.authorization_header),
      description: input.description ?? null,
      status: 'enabled',
      statusReason: null,
      createdAt: now,
      updatedAt: now,
    };
    const idempotency = idempotencyKey ? { key: idempotencyKey, fingerprint: fingerprint(input) } : undefined;
    return this.streams.transaction(async (manager) => {
      await this.streams.lockApplication(manager, principal.applicationId);
      if (idempotency) {
        const earlier = await this.streams.findByIdempotencyKey(manager, principal.applicationId, idempotency.key);
        if (earlier && earlier.fingerprint !== idempotency.fingerprint) {
          throw webhookError('idempotency_key_reused', 'This Idempotency-Key was used with another stream configuration', {
            field: 'Idempotency-Key',
          });
        }
        if (earlier) return { stream: earlier.stream, replayed: true };
      }
      if ((await this.streams.countForApplication(manager, principal.applicationId)) >= MAX_STREAMS_PER_APPLICATION) {
        throw webhookError('ssf_stream_limit_reached', 'The application has the maximum number of streams', {
          limit: MAX_STREAMS_PER_APPLICATION,
        });
      }
      await this.streams.insert(manager, stream, idempotency);
      return { stream, replayed: false };
    });
  }

  async get(principal: Principal, streamId: string): Promise<SsfStream> {
    const stream = await this.streams.find(principal.applicationId, streamId);
    if (!stream) throw notFound();
    return stream;
  }

  list(principal: Principal): Promise<SsfStream[]> {
    return this.streams.listFor(principal.applicationId, MAX_STREAMS_PER_APPLICATION);
  }

  /** PATCH (members given replace the stored ones) or PUT (`replace`: the whole receiver-supplied part). */
  async update(principal: Principal, streamId: string, input: Partial<StreamInput>, replace: boolean): Promise<SsfStream> {
    if (input.delivery) await this.checkDelivery(principal, input.delivery);
    return this.streams.transaction(async (manager) => {
      const stream = await this.streams.find(principal.applicationId, streamId, manager, true);
      if (!stream) throw notFound();
      const next: SsfStream = { ...stream, updatedAt: this.clock.now() };
      if (input.delivery) {
        next.endpointUrl = checkWebhookUrl(input.delivery.endpoint_url, principal.environment);
        next.authorizationHeaderEnc = this.sealAuthorization(stream.id, input.delivery.authorization_header);
      }
      if (input.events_requested) next.eventsRequested = [...new Set(input.events_requested)];
      if (input.description !== undefined || replace) next.description = input.description ?? null;
      await this.streams.update(manager, next);
      return next;
    });
  }

  async remove(principal: Principal, streamId: string): Promise<void> {
    if (!(await this.streams.delete(principal.applicationId, streamId))) throw notFound();
  }

  /** Sets the status; enabling a paused stream pushes what it held. */
  async setStatus(principal: Principal, streamId: string, status: StreamStatus, reason: string | undefined): Promise<SsfStream> {
    const updated = await this.streams.transaction(async (manager) => {
      const stream = await this.streams.find(principal.applicationId, streamId, manager, true);
      if (!stream) throw notFound();
      const next: SsfStream = { ...stream, status, statusReason: reason ?? null, updatedAt: this.clock.now() };
      await this.streams.update(manager, next);
      // A disabled stream drops what it held (SSF 1.0 §8.1.2): nothing is pushed when it comes back.
      if (status === 'disabled')
        await manager.query(`DELETE FROM webhooks.ssf_deliveries WHERE stream_id = $1 AND status = 'pending'`, [stream.id]);
      return next;
    });
    if (status === 'enabled') this.worker.kick();
    return updated;
  }

  /** Queues the verification event (SSF 1.0 §8.1.4), `state` echoed; pushed like any other SET. */
  async verify(principal: Principal, streamId: string, state: string | undefined): Promise<void> {
    const stream = await this.get(principal, streamId);
    if (stream.status === 'disabled')
      throw webhookError('ssf_stream_disabled', 'A disabled stream delivers nothing; enable it first', { stream_id: stream.id });
    const now = this.clock.now();
    const sourceEventId = `verification:${randomUUID()}`;
    const setJwt = await this.signer.sign({
      jti: `${sourceEventId}.${stream.id}`,
      audience: stream.audience,
      subject: { format: 'opaque', id: stream.id },
      eventType: SSF_VERIFICATION,
      payload: state !== undefined ? { state } : {},
      issuedAt: now,
    });
    await this.streams.transaction((manager) =>
      this.deliveries.enqueue(
        manager,
        [{ id: newSetDeliveryId(), streamId: stream.id, sourceEventId, eventType: SSF_VERIFICATION, setJwt, maxAttempts: 5 }],
        now,
      ),
    );
    this.worker.kick();
  }

  private async checkDelivery(principal: Principal, delivery: StreamInput['delivery']): Promise<void> {
    if (delivery.method !== PUSH_DELIVERY_METHOD) {
      throw webhookError('ssf_delivery_method_unsupported', `Only push delivery (${PUSH_DELIVERY_METHOD}) is offered`, {
        field: 'delivery.method',
      });
    }
    try {
      const url = checkWebhookUrl(delivery.endpoint_url, principal.environment);
      await checkWebhookTarget(url, principal.environment);
    } catch (error) {
      // Same codes as a webhook endpoint, naming the stream's field.
      if (error instanceof DomainError)
        throw new DomainError(error.kind, error.code, error.message, { ...error.detail, field: 'delivery.endpoint_url' });
      throw error;
    }
  }

  private sealAuthorization(streamId: string, header: string | undefined): Buffer | null {
    // aad = stream id: a ciphertext copied onto another stream's row does not decrypt.
    return header === undefined ? null : this.kek.encrypt(Buffer.from(header, 'utf8'), streamId);
  }
}

function notFound(): DomainError {
  return webhookError('ssf_stream_not_found', 'No such stream', { field: 'stream_id' });
}

/** SHA-256 of the request's configuration: a replayed key must carry the same body. */
function fingerprint(input: StreamInput): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        input.delivery.method,
        input.delivery.endpoint_url,
        input.delivery.authorization_header ?? null,
        input.events_requested,
        input.description ?? null,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
}

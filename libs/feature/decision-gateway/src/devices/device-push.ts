import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { PeopleConfig } from '../people/people.config';
import { DeviceLinksRepository } from './device-links.repository';

/** What a push tells the phone: never personal data, only that something waits and where. */
export interface DevicePushMessage {
  type: 'approval_requested' | 'signature_requested';
  /** Where the phone opens it: the inbox (the page lists every pending decision). */
  url: string;
  /** Escalation or agreement id, for the phone to collapse duplicates. */
  reference: string;
}

/** Whether Web Push is configured, and the public key a phone subscribes with. */
export interface PushSettings {
  enabled: boolean;
  vapidPublicKey: string | null;
}

/**
 * Sends Web Push messages (RFC 8030, payload encrypted per RFC 8291 `aes128gcm`, VAPID RFC 8292)
 * to people's active device links, through the `web-push` library. Off unless the three VAPID
 * variables are set: then nothing is sent and device links say push is off. Pushes go only to
 * subscriptions whose endpoint lies on a configured push-service origin.
 */
@Injectable()
export class DevicePush {
  private readonly origins: ReadonlySet<string>;

  constructor(
    @Inject(PeopleConfig) private readonly config: PeopleConfig,
    private readonly links: DeviceLinksRepository,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.origins = new Set(config.WEB_PUSH_ENDPOINT_ORIGINS.split(',').map((o) => o.trim().toLowerCase()));
  }

  get settings(): PushSettings {
    const enabled = Boolean(
      this.config.WEB_PUSH_VAPID_PUBLIC_KEY && this.config.WEB_PUSH_VAPID_PRIVATE_KEY && this.config.WEB_PUSH_SUBJECT,
    );
    return { enabled, vapidPublicKey: enabled ? this.config.WEB_PUSH_VAPID_PUBLIC_KEY! : null };
  }

  /** True when a subscription endpoint is an https (or configured) URL on an allowed push service. */
  endpointAllowed(endpoint: string): boolean {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return false;
    }
    if (url.username || url.password) return false;
    return this.origins.has(url.origin.toLowerCase());
  }

  /** Pushes `message` to every active device of these people; the number of pushes the services accepted. */
  async notify(personIds: string[], message: DevicePushMessage): Promise<number> {
    if (!this.settings.enabled) return 0;
    const devices = await this.links.activeOf([...new Set(personIds)]);
    if (devices.length === 0) return 0;
    // web-push is loaded with the first push: a process that pushes nothing never loads it.
    const { default: webpush } = await import('web-push');
    let accepted = 0;
    for (const device of devices) {
      if (!device.pushEndpoint || !device.pushP256dh || !device.pushAuth || !this.endpointAllowed(device.pushEndpoint)) continue;
      let status: number;
      try {
        // web-push builds the request (aes128gcm payload, VAPID JWT); it is sent here so the
        // configured origins (http for a loopback push service in development) are honoured.
        const request = webpush.generateRequestDetails(
          { endpoint: device.pushEndpoint, keys: { p256dh: device.pushP256dh, auth: device.pushAuth } },
          JSON.stringify(message),
          {
            vapidDetails: {
              subject: this.config.WEB_PUSH_SUBJECT!,
              publicKey: this.config.WEB_PUSH_VAPID_PUBLIC_KEY!,
              privateKey: this.config.WEB_PUSH_VAPID_PRIVATE_KEY!,
            },
            TTL: 3_600,
            urgency: 'high',
            contentEncoding: 'aes128gcm',
          },
        );
        const response = await fetch(request.endpoint, {
          method: 'POST',
          headers: Object.fromEntries(
            Object.entries(request.headers)
              .filter(([name]) => name.toLowerCase() !== 'content-length')
              .map(([name, value]) => [name, String(value)]),
          ),
          body: request.body ?? undefined,
          redirect: 'manual',
          signal: AbortSignal.timeout(5_000),
        });
        await response.body?.cancel();
        status = response.status;
      } catch {
        // Unreachable or timed out; the endpoint is never logged.
        status = 0;
      }
      await this.links.recordPush(device.id, this.clock.now(), status);
      if (status >= 200 && status < 300) accepted += 1;
      else this.logger.warn({ deviceLinkId: device.id, status }, 'push not accepted');
    }
    return accepted;
  }
}

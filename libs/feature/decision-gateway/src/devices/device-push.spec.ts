import type { Clock } from '@svc/config';
import type { Logger } from '@svc/telemetry';
import type { PeopleConfig } from '../people/people.config';
import type { DeviceLinksRepository } from './device-links.repository';
import { DevicePush } from './device-push';

const ORIGINS = 'https://fcm.googleapis.com,https://updates.push.services.mozilla.com';

function devicePush(config: Partial<PeopleConfig>): { push: DevicePush; looked: string[][] } {
  const looked: string[][] = [];
  const links = {
    activeOf: (ids: string[]) => (looked.push(ids), Promise.resolve([])),
    recordPush: () => Promise.resolve(),
  } as unknown as DeviceLinksRepository;
  const push = new DevicePush(
    { WEB_PUSH_ENDPOINT_ORIGINS: ORIGINS, ...config } as PeopleConfig,
    links,
    { now: () => new Date() } as Clock,
    { warn: () => undefined } as unknown as Logger,
  );
  return { push, looked };
}

describe('DevicePush', () => {
  it('is off without the VAPID keys and subject: says so, and sends nothing (not even a lookup)', async () => {
    for (const partial of [
      {},
      { WEB_PUSH_VAPID_PUBLIC_KEY: 'a'.repeat(87), WEB_PUSH_VAPID_PRIVATE_KEY: 'b'.repeat(43) },
      { WEB_PUSH_VAPID_PUBLIC_KEY: 'a'.repeat(87), WEB_PUSH_SUBJECT: 'mailto:ops@example.test' },
    ]) {
      const { push, looked } = devicePush(partial);
      expect(push.settings).toEqual({ enabled: false, vapidPublicKey: null });
      expect(
        await push.notify(['usr_us_aaaaaaaaaaaaaaaaaaaa'], { type: 'approval_requested', reference: 'esc_us_x', url: 'https://a/inbox' }),
      ).toBe(0);
      expect(looked).toEqual([]);
    }
  });

  it('is on with all three, and offers the public key', () => {
    const { push } = devicePush({
      WEB_PUSH_VAPID_PUBLIC_KEY: 'a'.repeat(87),
      WEB_PUSH_VAPID_PRIVATE_KEY: 'b'.repeat(43),
      WEB_PUSH_SUBJECT: 'mailto:ops@example.test',
    });
    expect(push.settings).toEqual({ enabled: true, vapidPublicKey: 'a'.repeat(87) });
  });

  it('accepts subscription endpoints on the configured push services only', () => {
    const { push } = devicePush({});
    expect(push.endpointAllowed('https://fcm.googleapis.com/fcm/send/abc')).toBe(true);
    expect(push.endpointAllowed('https://FCM.googleapis.com/x')).toBe(true);
    expect(push.endpointAllowed('https://fcm.googleapis.com.evil.example/x')).toBe(false);
    expect(push.endpointAllowed('http://fcm.googleapis.com/x')).toBe(false);
    expect(push.endpointAllowed('https://user:pw@fcm.googleapis.com/x')).toBe(false);
    expect(push.endpointAllowed('https://169.254.169.254/latest')).toBe(false);
    expect(push.endpointAllowed('not a url')).toBe(false);
  });
});

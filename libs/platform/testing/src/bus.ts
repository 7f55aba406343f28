import { BusConnection, deleteStreamsWithPrefix } from '@svc/bus';
import { randomBase32 } from '@svc/ids';

export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A subject and stream prefix of its own for one test file. */
export function uniqueBusPrefix(): string {
  return `t${randomBase32(10).replace(/[^a-z0-9]/g, 'a')}`;
}

/** Deletes every stream a test file created under its prefix. */
export async function deleteTestStreams(prefix: string): Promise<void> {
  const bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'test-cleanup' });
  try {
    await deleteStreamsWithPrefix(bus.jsm, prefix);
  } finally {
    await bus.close();
  }
}

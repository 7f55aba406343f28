import { connect } from 'nats';
import { randomBase32 } from '@svc/ids';

export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A subject and stream prefix of its own for one test file. */
export function uniqueBusPrefix(): string {
  return `t${randomBase32(10).replace(/[^a-z0-9]/g, 'a')}`;
}

/** The names of the streams that exist under a test file's prefix (what a teardown must leave empty). */
export async function testStreams(prefix: string): Promise<string[]> {
  const nc = await connect({ servers: TEST_NATS_URL, name: 'test-streams' });
  try {
    const upper = `${prefix}_`.toUpperCase();
    const names: string[] = [];
    for await (const stream of (await nc.jetstreamManager()).streams.list()) {
      if (stream.config.name.startsWith(upper)) names.push(stream.config.name);
    }
    return names;
  } finally {
    await nc.close();
  }
}

/**
 * Deletes every stream a test file created under its prefix. Uses nats directly (not @svc/bus)
 * so the bus library's own tests can use this fixture without a dependency cycle.
 */
export async function deleteTestStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: TEST_NATS_URL, name: 'test-cleanup' });
  try {
    const jsm = await nc.jetstreamManager();
    const upper = `${prefix}_`.toUpperCase();
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(upper)) await jsm.streams.delete(stream.config.name);
    }
  } finally {
    await nc.drain();
  }
}

import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from 'nats';
import { deadLetterStreamName, deadLetterWildcard, regionEventWildcard, regionStreamName } from '@svc/contracts';

/** Nanoseconds per millisecond, the unit of JetStream durations. */
export const NANOS_PER_MS = 1_000_000;

/** Publish dedupe window: a republish of the same Nats-Msg-Id inside it is dropped by the server. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** How long dead letters are kept for inspection and replay. */
export const DEAD_LETTER_MAX_AGE_MS = 30 * 24 * 60 * 60_000;

/**
 * Creates (or updates) the stream holding a region's events, and the one keeping its dead letters
 * (`<prefix>.<region>.dlq.<durable>`: events a durable gave up on after its last delivery).
 * Idempotent.
 */
export async function ensureRegionStream(jsm: JetStreamManager, prefix: string, region: string): Promise<StreamInfo> {
  await ensureStream(jsm, {
    name: deadLetterStreamName(prefix, region),
    subjects: [deadLetterWildcard(prefix, region)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    max_age: DEAD_LETTER_MAX_AGE_MS * NANOS_PER_MS,
    num_replicas: 1,
  });
  return ensureStream(jsm, {
    name: regionStreamName(prefix, region),
    subjects: [regionEventWildcard(prefix, region)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    max_age: 7 * 24 * 60 * 60_000 * NANOS_PER_MS,
    num_replicas: 1,
  });
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<StreamInfo> {
  const { name } = config;
  try {
    await jsm.streams.info(name);
    return await jsm.streams.update(name, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    return await jsm.streams.add(config);
  } catch (error) {
    // Another region's process made a copy of this stream meanwhile (ensureImportedStream): widen it.
    if (error instanceof Error && /already in use/i.test(error.message)) return jsm.streams.update(name, config);
    throw error;
  }
}

/**
 * Where a region's events arrive in another account (deploy/nats/accounts.conf: each region is a
 * NATS account, and only the cross-border directory subject is exported as a stream and imported
 * by the other accounts): a stream of the importing account, named as the region's own stream so
 * that durable consumers of that region (`@EventConsumer` with `region`) find it, holding only
 * the imported subjects. When a stream of that name already exists (the region's own stream, in a
 * deployment where every region shares one account, or a copy made before) it is left as it is:
 * the owner region's `ensureRegionStream` widens a copy to its whole event subject space.
 */
export async function ensureImportedStream(
  jsm: JetStreamManager,
  prefix: string,
  region: string,
  subjects: readonly string[],
): Promise<void> {
  const name = regionStreamName(prefix, region);
  try {
    await jsm.streams.info(name);
    return;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await jsm.streams.add({
    name,
    subjects: [...subjects],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    max_age: 7 * 24 * 60 * 60_000 * NANOS_PER_MS,
    num_replicas: 1,
  });
}

/** Deletes every stream whose name starts with the prefix; for test teardown. */
export async function deleteStreamsWithPrefix(jsm: JetStreamManager, prefix: string): Promise<void> {
  const upper = `${prefix}_`.toUpperCase();
  for await (const stream of jsm.streams.list()) {
    if (stream.config.name.startsWith(upper)) await jsm.streams.delete(stream.config.name);
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

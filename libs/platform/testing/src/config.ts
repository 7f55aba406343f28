import { randomBytes } from 'node:crypto';
import { PlatformConfig, loadConfig, type Region } from '@svc/config';
import { TEST_NATS_URL } from './bus';

/** A fresh key-encryption key (base64 of 32 random bytes). */
export function testKeyEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}

/** A validated PlatformConfig for a test process; listens on a free port unless told otherwise. */
export function testConfig(values: { REGION: Region; DATABASE_URL: string; BUS_PREFIX: string } & Record<string, string>): PlatformConfig {
  return loadConfig(PlatformConfig, {
    NATS_URL: TEST_NATS_URL,
    HTTP_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
    SERVICE_NAME: 'test',
    ...values,
  });
}

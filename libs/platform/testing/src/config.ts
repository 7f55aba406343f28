import { randomBytes } from 'node:crypto';
import { PlatformConfig, loadConfig, type Region } from '@svc/config';
import { TEST_NATS_URL } from './bus';

/** A fresh key-encryption key (base64 of 32 random bytes). */
export function testKeyEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}

type TestVariables = { REGION: Region; DATABASE_URL: string; BUS_PREFIX: string } & Record<string, string>;

/**
 * The environment of a test process (what `startProcess` validates): the test bus, a free port, a
 * fresh key-encryption key and silent logs, unless told otherwise; feature variables pass through.
 */
export function testEnv(values: TestVariables): Record<string, string> {
  return {
    NATS_URL: TEST_NATS_URL,
    HTTP_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
    SERVICE_NAME: 'test',
    ...values,
  };
}

/** A validated PlatformConfig for code under test that takes one directly. */
export function testConfig(values: TestVariables): PlatformConfig {
  return loadConfig(PlatformConfig, testEnv(values));
}

/** The Chromium browser tests run: `CHROMIUM_PATH`, else Debian's. */
export const TEST_CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

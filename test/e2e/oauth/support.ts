import { Global, Module } from '@nestjs/common';
import { PERSON_DIRECTORY, PERSON_SESSIONS, type PersonDirectory, type PersonSessions, type SignedInPerson } from '@svc/decision-gateway';
import { ALL_FEATURES } from '@svc/region-stack';
import { startProcess, type FeatureDefinition, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, freePort, testConfig, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '@svc/telemetry';

/**
 * A stand-in of the people feature's port for these tests only: a person is "signed in" on a
 * request that carries the cookie `test_person=<person id>` of a person the test registered.
 */
export const TEST_PEOPLE = new Map<string, SignedInPerson>();
export const TEST_SIGN_IN_PATH = '/test-sign-in';

class CookiePersonSessions implements PersonSessions, PersonDirectory {
  async fromRequest(request: IncomingMessage): Promise<SignedInPerson | null> {
    const match = /(?:^|;\s*)test_person=([^;]+)/.exec(request.headers.cookie ?? '');
    return (match?.[1] && TEST_PEOPLE.get(decodeURIComponent(match[1]))) || null;
  }

  signInPath(returnTo: string): string {
    return `${TEST_SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo)}`;
  }

  async findById(personId: string): Promise<Omit<SignedInPerson, 'authenticatedAt' | 'methods'> | null> {
    const person = TEST_PEOPLE.get(personId);
    if (!person) return null;
    const { authenticatedAt: _at, methods: _methods, ...rest } = person;
    return rest;
  }
}

const sessions = new CookiePersonSessions();

@Global()
@Module({
  providers: [
    { provide: PERSON_SESSIONS, useValue: sessions },
    { provide: PERSON_DIRECTORY, useValue: sessions },
  ],
  exports: [PERSON_SESSIONS, PERSON_DIRECTORY],
})
class TestPeopleModule {}

const testPeopleFeature: FeatureDefinition = { name: 'test-people', module: TestPeopleModule, migrations: [], outboxSchemas: [] };

export interface OAuthRegion {
  url: string;
  /** Every log line the region wrote (debug and up). */
  logLines: string[];
  process: RunningProcess;
  close(): Promise<void>;
}

/** Boots the us region in monolithic mode with the test people port, on its own database and bus prefix. */
export async function startOAuthRegion(label: string): Promise<OAuthRegion> {
  const prefix = uniqueBusPrefix();
  const port = await freePort();
  const database = await createTestDatabase(`${label}_us`);
  const url = `http://127.0.0.1:${port}`;
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
      done();
    },
  });
  try {
    const running = await startProcess({
      features: [...ALL_FEATURES, testPeopleFeature],
      config: testConfig({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
        REGION_URLS: `us=${url},eu=http://127.0.0.1:9,ap=http://127.0.0.1:9`,
        PUBLIC_BASE_URL: url,
        SERVICE_NAME: 'e2e-oauth-us',
      }),
      logger: createLogger({ service: 'e2e-oauth', region: 'us', level: 'debug', destination }),
    });
    return {
      url,
      logLines,
      process: running,
      close: async () => {
        await running.close();
        await database.drop();
        await deleteTestStreams(prefix);
      },
    };
  } catch (error) {
    await database.drop();
    await deleteTestStreams(prefix);
    throw error;
  }
}

/** A minimal cookie jar for driving the provider's redirects with fetch. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const separator = pair?.indexOf('=') ?? -1;
      if (!pair || separator < 1) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

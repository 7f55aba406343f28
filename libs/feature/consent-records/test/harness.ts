import { BusConnection } from '@svc/bus';
import type { FakeClock } from '@svc/config';
import { decodeEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { startProcess, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';
import { consentRecordsFeature } from '../src';

export type Json = Record<string, unknown>;

/** One application as tests use it: id, API token, publishable key. */
export interface TestApp {
  id: string;
  token: string;
  pk: string;
}

/**
 * A region process with decision-gateway (applications, credentials) and consent-records on a
 * database and bus prefix of their own; collects every published event.
 */
export class RecordsHarness {
  readonly events: Array<{ type: string; payload: Json }> = [];
  database!: TestDatabase;
  prefix!: string;
  running!: RunningProcess;
  url!: string;

  constructor(readonly clock: FakeClock) {}

  /** Starts the process; `env` adds variables of consent-records (e.g. DIRECTORY_KEY). */
  async start(label: string, env: Record<string, string> = {}): Promise<this> {
    this.database = await createTestDatabase(label);
    this.prefix = uniqueBusPrefix();
    this.running = await startProcess({
      features: [decisionGatewayFeature, consentRecordsFeature],
      env: testEnv({
        REGION: 'us',
        DATABASE_URL: this.database.url,
        BUS_PREFIX: this.prefix,
        PUBLIC_BASE_URL: 'https://us.example.test',
        ...env,
      }),
      clock: this.clock,
    });
    this.url = this.running.url;
    const subscription = this.running.app.get(BusConnection).nc.subscribe(`${this.prefix}.us.evt.>`);
    void (async () => {
      for await (const msg of subscription) {
        const type = msg.headers?.get('Svc-Event-Type') ?? '';
        this.events.push({ type, payload: decodeEvent(type, msg.data, this.running.app.get(BusConnection).personalData) as Json });
      }
    })();
    return this;
  }

  async close(): Promise<void> {
    await this.running?.close();
    await this.database?.drop();
    await deleteTestStreams(this.prefix);
  }

  async newApp(name: string, origin?: string): Promise<TestApp> {
    const created = await this.running.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    const app = { id: created.application.id, token: created.apiToken, pk: created.publishableKey };
    if (origin) {
      const res = await http('POST', `${this.url}/api/v1/applications/${app.id}/allowed_origins`, {
        headers: auth(app.token),
        json: { allowed_origin: { origin } },
      });
      if (res.status !== 201) throw new Error(`allowed origin: ${res.status} ${res.text}`);
    }
    return app;
  }

  /** Creates (and by default activates) a flow with consent purposes newsletter and offers plus a contract purpose. */
  async flow(token: string, options: { activate?: boolean; consentDuration?: string | null } = {}): Promise<string> {
    const res = await http<{ id: string }>('POST', `${this.url}/api/v1/flows`, {
      headers: auth(token),
      json: signupFlow({ consentDuration: options.consentDuration }),
    });
    if (res.status !== 201) throw new Error(`flow: ${res.status} ${res.text}`);
    if (options.activate ?? true) await http('POST', `${this.url}/api/v1/flows/${res.body.id}/activate`, { headers: auth(token) });
    return res.body.id;
  }

  eventsOf(type: string, match: (payload: Json) => boolean = () => true): Json[] {
    return this.events.filter((e) => e.type === type && match(e.payload)).map((e) => e.payload);
  }
}

export const auth = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Decisions with both consent purposes given as `newsletter` / `offers`. */
/** Consent purposes newsletter and offers, and a contract purpose `account`. */
export const SIGNUP_PURPOSES: Json[] = [
  { key: 'newsletter', label: 'Newsletter' },
  { key: 'offers', label: 'Partner offers' },
  { key: 'account', label: 'Account', mechanism: 'contract', required: true },
];

/** A signup flow's body: SIGNUP_PURPOSES unless `purposes` says otherwise, consent for P1Y unless `consentDuration` does (null: none). */
export function signupFlow(options: { purposes?: Json[]; consentDuration?: string | null } = {}): Json {
  return {
    name: 'Signup form',
    locale: 'en',
    presentation: { title: 'Stay in touch' },
    purposes: options.purposes ?? SIGNUP_PURPOSES,
    ...(options.consentDuration === null ? {} : { consent_duration: options.consentDuration ?? 'P1Y' }),
  };
}

export function decisions(newsletter: 'granted' | 'declined', offers: 'granted' | 'declined'): Json {
  return {
    newsletter: { decision: newsletter, default_checked: false, mandatory: false },
    offers: { decision: offers, default_checked: false, mandatory: false },
  };
}

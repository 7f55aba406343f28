import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { chromium, type Browser } from 'playwright-core';
import { TEST_CHROMIUM_PATH } from '@svc/testing';
import { POSTMESSAGE_SCHEMAS, payloadSchemaName, type PostMessageKind, type PostMessageType } from '@svc/decision-gateway';

/** One message as a host page recorded it. */
export interface Received {
  origin: string;
  data: { type: PostMessageType; kind: PostMessageKind; version: number; payload: Record<string, unknown>; ts: string; message_id: string };
}

/**
 * Headless Debian Chromium. Third-party cookies are blocked with the Chromium switch
 * `--test-third-party-cookie-phaseout` (the 3PC phase-out mode), so the embed is exercised the
 * way current browsers ship it.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: TEST_CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--test-third-party-cookie-phaseout',
    ],
  });
}

/**
 * Validators built from the schemas as served at /schemas/postmessage/v2/ (fetched over HTTP,
 * not imported): every message a test receives goes through `check`.
 */
export async function publishedValidators(gateway: string): Promise<(message: Received['data']) => void> {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const name of Object.keys(POSTMESSAGE_SCHEMAS)) {
    const res = await fetch(`${gateway}/schemas/postmessage/v2/${name}.json`);
    if (res.status !== 200) throw new Error(`schema ${name} answered ${res.status}`);
    ajv.addSchema((await res.json()) as object);
  }
  const compiled = new Map<string, ValidateFunction>();
  const validator = (name: string): ValidateFunction => {
    let fn = compiled.get(name);
    if (!fn) {
      fn = ajv.getSchema(`/schemas/postmessage/v2/${name}.json`);
      if (!fn) throw new Error(`no schema ${name}`);
      compiled.set(name, fn);
    }
    return fn;
  };
  return (message) => {
    const envelope = validator('envelope');
    if (!envelope(message)) throw new Error(`envelope invalid: ${JSON.stringify(envelope.errors)} in ${JSON.stringify(message)}`);
    const payload = validator(payloadSchemaName(message.type, message.kind));
    if (!payload(message.payload))
      throw new Error(`${message.type} payload invalid: ${JSON.stringify(payload.errors)} in ${JSON.stringify(message)}`);
  };
}

import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createLogger } from './logger';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('JSON logger', () => {
  it('writes service, region and level on every line', () => {
    const { lines, stream } = capture();
    createLogger({ service: 'gateway', region: 'eu', level: 'info', destination: stream }).info('hello');
    expect(lines[0]).toMatchObject({ service: 'gateway', region: 'eu', level: 30, msg: 'hello' });
  });

  it('carries the active trace and span ids', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const tracer = new BasicTracerProvider().getTracer('test');
    const { lines, stream } = capture();
    const logger = createLogger({ service: 's', region: 'us', level: 'info', destination: stream });
    const span = tracer.startSpan('request');
    context.with(trace.setSpan(context.active(), span), () => logger.info('inside'));
    span.end();
    expect(lines[0]).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    context.disable();
  });

  it('never writes credentials', () => {
    const { lines, stream } = capture();
    createLogger({ service: 's', region: 'us', level: 'info', destination: stream }).info(
      {
        req: { headers: { authorization: 'Bearer secret-token', 'x-publishable-key': 'pk_test_x' } },
        body: { api_token: 'tok', secret: 'whsec' },
      },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('pk_test_x');
    expect(text).not.toContain('"tok"');
    expect(text).not.toContain('whsec');
  });

  it('logs database errors without bind parameters, driver details or quoted values, keeping SQLSTATE, constraint and statement', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ service: 's', region: 'us', level: 'info', destination: stream });
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "records_email_uq"'), {
      code: '23505',
      constraint: 'records_email_uq',
      detail: 'Key (lower(subject_email))=(ada@example.com) already exists.',
    });
    const failed = Object.assign(new Error(driverError.message), {
      name: 'QueryFailedError',
      code: '23505',
      constraint: 'records_email_uq',
      detail: driverError.detail,
      query: 'INSERT INTO consent_records.records (subject_email, subject_external_id, secret_enc) VALUES ($1, $2, $3)',
      parameters: ['ada@example.com', 'cust-42', Buffer.from('whsec_abc')],
      driverError,
    });
    logger.error({ err: failed }, 'request failed');
    logger.warn(
      { err: new Error('invalid input syntax for type uuid: "cust-42"'), error: 'could not sync grace@example.org' },
      'sync failed for grace@example.org',
    );
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    for (const value of ['ada@example.com', 'cust-42', 'grace@example.org', '"type":"Buffer"', 'whsec_abc'])
      expect(text).not.toContain(value);
    expect(lines[0]!.err).toMatchObject({
      code: '23505',
      constraint: 'records_email_uq',
      query: expect.stringContaining('VALUES ($1, $2, $3)'),
      message: expect.stringContaining('records_email_uq'),
    });
    expect(lines[0]!.err).not.toHaveProperty('parameters');
    expect(lines[0]!.err).not.toHaveProperty('driverError');
    expect(lines[1]).toMatchObject({
      msg: 'sync failed for [email]',
      error: 'could not sync [email]',
      err: { message: 'invalid input syntax for type uuid: "[redacted]"' },
    });
  });

  it("never writes tokens, codes, cookies, people's data or bodies, wherever they sit in the object", () => {
    const { lines, stream } = capture();
    createLogger({ service: 's', region: 'us', level: 'info', destination: stream }).info(
      {
        req: { headers: { dpop: 'eyJdpop', cookie: 'sid=cookie-value', 'x-api-key': 'key-value' }, body: { note: 'body-value' } },
        session_token: 'dts_session',
        grant: { access_token: 'tat_access', authorization_code: 'code-value', external_id: 'cust-7', user_identifier: 'user-7' },
      },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    for (const value of [
      'eyJdpop',
      'cookie-value',
      'key-value',
      'body-value',
      'dts_session',
      'tat_access',
      'code-value',
      'cust-7',
      'user-7',
    ])
      expect(text).not.toContain(value);
  });
});

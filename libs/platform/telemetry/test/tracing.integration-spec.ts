import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_DATABASE_SERVER } from '@svc/testing';

jest.setTimeout(60_000);

type OtlpValue = { stringValue?: string; intValue?: string | number };
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
}

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const SPAN_KIND_CLIENT = 3;

const attribute = (span: OtlpSpan, key: string): string | number | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

/**
 * A real process: `pg` and `undici` are loaded before tracing starts (as an entry point loads them
 * before reading its configuration), and the spans arrive at an OTLP/HTTP collector.
 */
describe('startTracing in a process', () => {
  let collector: Server;
  let target: Server;
  const bodies: string[] = [];

  beforeAll(async () => {
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    target = createServer((_req, res) => res.end('ok'));
    for (const server of [collector, target]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const server of [collector, target]) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('exports a pg query span (SQL text, no bind value) and an undici span (no query string) in the caller trace', async () => {
    const marker = `marker${randomBytes(6).toString('hex')}`;
    const root = join(__dirname, '..', '..', '..', '..');
    await promisify(execFile)(
      process.execPath,
      [
        join(root, 'scripts', 'run-ts.js'),
        join(__dirname, 'tracing-probe.ts'),
        urlOf(collector),
        `${TEST_DATABASE_SERVER}/postgres`,
        urlOf(target),
      ],
      { cwd: root, timeout: 50_000, env: { ...process.env, PROBE_MARKER: marker } },
    );
    const spans = bodies.flatMap((body) => {
      const parsed = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      return parsed.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    });
    const work = spans.find((s) => s.name === 'probe work');
    expect(work).toBeDefined();
    const query = spans.find(
      (s) => attribute(s, 'db.statement') === 'SELECT $1::text AS marker' || attribute(s, 'db.query.text') === 'SELECT $1::text AS marker',
    );
    const call = spans.find(
      (s) => s.kind === SPAN_KIND_CLIENT && attribute(s, 'http.request.method') === 'POST' && attribute(s, 'url.path') === '/hooks',
    );
    expect(query).toBeDefined();
    expect(call).toBeDefined();
    for (const span of [query!, call!]) expect(span.traceId).toBe(work!.traceId);
    expect(String(attribute(call!, 'url.full'))).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
    expect(attribute(call!, 'url.query')).toBeUndefined();
    // Neither the bind value nor the query string reaches any exported span.
    expect(bodies.join('\n')).not.toContain(marker);
  });
});

import { PlatformConfig } from '@svc/config';
import { Controller, HttpCode, Module, Post, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Public } from '@svc/auth';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';
import type { FastifyRequest } from 'fastify';
import { RAW_BODY_ROUTE, rawBodyOf } from './raw-body';
import { startProcess, type RunningProcess } from './start-process';

@Controller('raw-body-test')
class EchoController {
  @Post('raw')
  @Public()
  @RouteConfig(RAW_BODY_ROUTE)
  @HttpCode(200)
  raw(@Req() request: FastifyRequest): Record<string, unknown> {
    return { raw: rawBodyOf(request)?.toString('utf8') ?? null, parsed: request.body };
  }

  @Post('plain')
  @Public()
  @HttpCode(200)
  plain(@Req() request: FastifyRequest): Record<string, unknown> {
    return { raw: rawBodyOf(request)?.toString('utf8') ?? null, parsed: request.body };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/** A route can ask for the exact body bytes (e.g. to check a sender's HMAC); other routes are unchanged. */
describe('per-route raw body capture', () => {
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;

  beforeAll(async () => {
    database = await createTestDatabase('raw_body');
    prefix = uniqueBusPrefix();
    running = await startProcess({
      features: [{ name: 'echo', module: EchoModule, config: PlatformConfig, migrations: [], outboxSchemas: [] }],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix }),
    });
  });
  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  const post = (path: string, raw: string) =>
    http('POST', `${running.url}/raw-body-test/${path}`, { headers: { 'content-type': 'application/json' }, raw });

  it('keeps the exact bytes beside the parsed body on a raw-body route only', async () => {
    const raw = '{\n  "b": 1,   "a": "é"\n}';
    expect((await post('raw', raw)).body).toEqual({ raw, parsed: { b: 1, a: 'é' } });
    expect((await post('plain', raw)).body).toEqual({ raw: null, parsed: { b: 1, a: 'é' } });
  });

  it('still applies the body limit and JSON errors on a raw-body route', async () => {
    const huge = await post('raw', JSON.stringify({ x: 'x'.repeat(1_100_000) }));
    expect([huge.status, huge.body.reason_code]).toEqual([413, 'payload_too_large']);
    const malformed = await post('raw', '{');
    expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
  });
});

import { PlatformConfig } from '@svc/config';
import { Body, Controller, Get, HttpCode, Module, Post, Query } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Public } from '@svc/auth';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '../nullable';
import { startProcess, type RunningProcess } from '../start-process';
import { FORM_BODY_ROUTE } from './body-parsers';

class EdgeInner {
  @IsOptional() @IsString() label?: string;
}

class EdgeBody {
  @IsString() name!: string;
  @IsOptional() @IsInt() count?: number;
  @IsOptional() @IsString() @Nullable() note?: string | null;
  @IsOptional() @ValidateNested() @Type(() => EdgeInner) inner?: EdgeInner;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => EdgeInner) items?: EdgeInner[];
}

class EdgeQuery {
  @IsOptional() @IsString() q?: string;
}

@Controller('edge-test')
@Public()
class EdgeController {
  @Post('items')
  @HttpCode(200)
  create(@Body() body: EdgeBody): EdgeBody {
    return body;
  }

  @Get('items')
  list(@Query() query: EdgeQuery): EdgeQuery {
    return query;
  }

  @Post('form')
  @RouteConfig(FORM_BODY_ROUTE)
  @HttpCode(200)
  form(@Body() body: unknown): unknown {
    return body;
  }
}

@Module({ controllers: [EdgeController] })
class EdgeModule {}

/** The request edge answers bad input with the envelope's 4xx before any handler or validation runs. */
describe('the request edge', () => {
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;

  beforeAll(async () => {
    database = await createTestDatabase('request_edge');
    prefix = uniqueBusPrefix();
    running = await startProcess({
      features: [{ name: 'edge', module: EdgeModule, config: PlatformConfig, migrations: [], outboxSchemas: [] }],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix }),
    });
  });
  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  const url = (path: string): string => `${running.url}/edge-test/${path}`;
  const json = (raw: string | Buffer, contentType = 'application/json') =>
    http('POST', url('items'), { headers: { 'content-type': contentType }, raw });
  const answer = (res: { status: number; body: Record<string, unknown> }) => [res.status, res.body.reason_code];

  it('accepts a valid body', async () => {
    const res = await json(JSON.stringify({ name: 'a', count: 1, inner: { label: 'x' } }));
    expect([res.status, res.body]).toEqual([200, { name: 'a', count: 1, inner: { label: 'x' } }]);
  });

  it('answers 400 json_too_deep to 2,000- and 300,000-deep bodies, never 500', async () => {
    for (const depth of [2_000, 300_000]) {
      const res = await json(`{"name":"a","inner":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect(answer(res)).toEqual([400, 'json_too_deep']);
    }
  });

  it('answers 400 to an object with more than 1,000 members', async () => {
    const wide = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, 1]));
    expect(answer(await json(JSON.stringify({ name: 'a', inner: wide })))).toEqual([400, 'json_too_many_members']);
  });

  it('answers 400 malformed_json to bytes that are not UTF-8, instead of storing U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]);
    expect(answer(await json(bytes))).toEqual([400, 'malformed_json']);
  });

  it('answers 415 unsupported_media_type to a body without Content-Type: application/json', async () => {
    const body = JSON.stringify({ name: 'a' });
    expect(answer(await http('POST', url('items'), { raw: Buffer.from(body) }))).toEqual([415, 'unsupported_media_type']);
    expect(answer(await json(body, 'text/plain'))).toEqual([415, 'unsupported_media_type']);
    expect(answer(await json(body, 'application/x-www-form-urlencoded'))).toEqual([415, 'unsupported_media_type']);
    expect(answer(await json(body, 'application/json; charset=utf-16'))).toEqual([415, 'unsupported_media_type']);
    expect((await json(body, 'application/json; charset=utf-8')).status).toBe(200);
  });

  it('keeps form bodies for the routes that take them', async () => {
    const res = await http('POST', url('form'), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'type=unsubscribe&data%5Bemail%5D=a%40example.com',
    });
    expect([res.status, res.body]).toEqual([200, { type: 'unsubscribe', 'data[email]': 'a@example.com' }]);
  });

  it('answers 413 payload_too_large to an oversized body', async () => {
    expect(answer(await json(JSON.stringify({ name: 'x'.repeat(1_100_000) })))).toEqual([413, 'payload_too_large']);
  });

  it('answers 400 naming the field to U+0000 and unpaired surrogates in body and query strings', async () => {
    const nul = await json('{"name":"a\\u0000b"}');
    expect([nul.status, nul.body.reason_code, (nul.body.detail as Record<string, unknown>).field]).toEqual([
      400,
      'invalid_request',
      'name',
    ]);
    const surrogate = await json('{"name":"a","items":[{"label":"ok"},{"label":"\\udc00"}]}');
    expect([surrogate.status, (surrogate.body.detail as Record<string, unknown>).field]).toEqual([400, 'items.1.label']);
    const query = await http('GET', `${url('items')}?q=a%00b`);
    expect([query.status, (query.body.detail as Record<string, unknown>).field]).toEqual([400, 'q']);
  });

  it('refuses null for an optional field unless it is marked nullable, naming the field', async () => {
    const top = await json(JSON.stringify({ name: 'a', count: null }));
    expect([top.status, top.body.reason_code, (top.body.detail as Record<string, unknown>).field]).toEqual([
      400,
      'invalid_request',
      'count',
    ]);
    const nested = await json(JSON.stringify({ name: 'a', inner: { label: null } }));
    expect([nested.status, (nested.body.detail as Record<string, unknown>).field]).toEqual([400, 'inner.label']);
    const inArray = await json(JSON.stringify({ name: 'a', items: [{ label: null }] }));
    expect([inArray.status, (inArray.body.detail as Record<string, unknown>).field]).toEqual([400, 'items.0.label']);
    const nullable = await json(JSON.stringify({ name: 'a', note: null }));
    expect([nullable.status, nullable.body]).toEqual([200, { name: 'a', note: null }]);
  });
});

import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { Auth, Public, type Principal } from '@svc/auth';
import { IsString } from 'class-validator';
import { buildOpenApiDocument } from '../openapi/build-openapi';
import { IdempotencyExempt, OwnIdempotency, idempotencyModeOf } from './idempotency-policy';
import { idempotencyCallerOf, requestFingerprint } from './idempotency.interceptor';

class WidgetBody {
  @IsString() name!: string;
}

@Controller('api/v1/widgets')
class WidgetsController {
  @Post()
  create(@Body() body: WidgetBody): unknown {
    return body;
  }

  @Patch(':widget_id')
  rename(@Param('widget_id') id: string, @Body() body: WidgetBody): unknown {
    return { id, ...body };
  }

  @Delete(':widget_id')
  remove(@Param('widget_id') id: string): unknown {
    return { id };
  }

  @Get()
  list(): unknown[] {
    return [];
  }

  @Post('lookup')
  @IdempotencyExempt('a question whose answer must be current')
  lookup(@Body() body: WidgetBody): unknown {
    return body;
  }

  @Post('hot')
  @OwnIdempotency('stored inside the group commit')
  hot(@Body() body: WidgetBody): unknown {
    return body;
  }
}

@Controller('api/v1/widget_webhooks')
@Public()
class WidgetWebhooksController {
  @Post(':secret')
  receive(@Param('secret') secret: string): unknown {
    return { secret };
  }
}

@Controller('pages/widgets')
@Auth('access_token')
class WidgetPagesController {
  @Post()
  submit(@Body() body: WidgetBody): unknown {
    return body;
  }
}

type Operation = { parameters?: Array<{ $ref?: string }>; responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> };

/** Issue: Idempotency-Key on every creating or changing route, by default; exemptions declared. */
describe('the Idempotency-Key rule', () => {
  it('covers every changing method under /api/v1 of an authenticated route, and nothing else', () => {
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => idempotencyModeOf(m, '/api/v1/widgets', false, undefined))).toEqual([
      'platform',
      'platform',
      'platform',
      'platform',
    ]);
    expect(idempotencyModeOf('GET', '/api/v1/widgets', false, undefined)).toBe('none');
    expect(idempotencyModeOf('POST', '/api/v1/widget_webhooks/:secret', true, undefined)).toBe('none');
    expect(idempotencyModeOf('POST', '/oauth/token', false, undefined)).toBe('none');
    expect(idempotencyModeOf('POST', '/people/passkeys', false, undefined)).toBe('none');
    expect(idempotencyModeOf('POST', '/api/v1/widgets/lookup', false, { mode: 'exempt', reason: 'current answers' })).toBe('none');
    expect(idempotencyModeOf('POST', '/api/v1/grants', false, { mode: 'own', reason: 'group commit' })).toBe('own');
  });

  it('scopes keys per caller, never globally, and ignores publishable keys (public credentials)', () => {
    const base = { credentialId: 'c', scopes: [], environment: 'development', region: 'us', mode: 'test' } as const;
    expect(idempotencyCallerOf({ ...base, kind: 'api_token', applicationId: 'tp_us_a' } as Principal)).toBe('app:tp_us_a');
    expect(idempotencyCallerOf({ ...base, kind: 'access_token', applicationId: 'tp_us_a', personId: 'usr_us_p' } as Principal)).toBe(
      'person:tp_us_a:usr_us_p:',
    );
    expect(idempotencyCallerOf({ ...base, kind: 'attester_token', applicationId: 'tp_us_a' } as Principal)).toBe('attester:tp_us_a:c');
    expect(idempotencyCallerOf({ ...base, kind: 'publishable_key', applicationId: 'tp_us_a' } as Principal)).toBeUndefined();
    expect(idempotencyCallerOf(undefined)).toBeUndefined();
  });

  it('fingerprints the canonical request: key order and whitespace do not matter, method, path and values do', () => {
    const a = requestFingerprint('POST', '/api/v1/widgets', { name: 'a', size: { w: 1, h: 2 } });
    expect(requestFingerprint('post', '/api/v1/widgets', { size: { h: 2, w: 1 }, name: 'a' })).toBe(a);
    expect(requestFingerprint('POST', '/api/v1/widgets', { name: 'b', size: { w: 1, h: 2 } })).not.toBe(a);
    expect(requestFingerprint('POST', '/api/v1/gadgets', { name: 'a', size: { w: 1, h: 2 } })).not.toBe(a);
    expect(requestFingerprint('PATCH', '/api/v1/widgets', { name: 'a', size: { w: 1, h: 2 } })).not.toBe(a);
    expect(requestFingerprint('DELETE', '/api/v1/widgets/w1', undefined)).toBe(requestFingerprint('DELETE', '/api/v1/widgets/w1', null));
  });

  it('documents the header, the replay marker and 409/422 on exactly the covered operations', () => {
    const document = buildOpenApiDocument([WidgetsController, WidgetWebhooksController, WidgetPagesController], {
      title: 't',
      version: '1',
    }) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const honours = (operation: Operation | undefined): boolean =>
      (operation?.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
    const widgets = document.paths['/api/v1/widgets']!;
    const one = document.paths['/api/v1/widgets/{widget_id}']!;
    for (const operation of [widgets.post, one.patch, one.delete]) {
      expect(honours(operation)).toBe(true);
      const success = Object.entries(operation!.responses).filter(([code]) => code.startsWith('2'));
      expect(success.length).toBeGreaterThan(0);
      for (const [, response] of success)
        expect(response.headers).toMatchObject({ 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } });
      expect(operation!.responses['409']).toEqual({ $ref: '#/components/responses/Error409' });
      expect(operation!.responses['422']).toEqual({ $ref: '#/components/responses/Error422' });
    }
    expect(honours(widgets.get)).toBe(false);
    expect(honours(document.paths['/api/v1/widgets/lookup']!.post)).toBe(false);
    expect(honours(document.paths['/api/v1/widgets/hot']!.post)).toBe(false);
    expect(honours(document.paths['/api/v1/widget_webhooks/{secret}']!.post)).toBe(false);
    expect(honours(document.paths['/pages/widgets']!.post)).toBe(false);
  });
});

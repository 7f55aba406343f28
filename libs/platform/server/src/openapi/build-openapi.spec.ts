import { Body, Controller, Get, Options, Param, Post } from '@nestjs/common';
import { Auth, Public } from '@svc/auth';
import { defineErrors } from '@svc/errors';
import { IsDateString, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '../nullable';
import { ApiDoc, ApiResponseOf } from './api-doc.decorator';
import { buildOpenApiDocument } from './build-openapi';

defineErrors({ note_locked: 'conflict' });

class NoteView {
  @IsString() id!: string;
  @IsString() title!: string;
}

class NoteQueuedView {
  @IsString() queue_position!: string;
}

class AttestBody {
  @IsObject() @ValidateNested() context!: object;
  @IsDateString() due!: string;
}

@Controller('api/v1/notes')
@Auth('api_token')
class SecuredNotesController {
  @Post()
  @ApiDoc({ headers: ['Idempotency-Key'], replays: true, errors: [400, 409] })
  @ApiResponseOf(NoteView, { status: 201 })
  @ApiResponseOf(NoteQueuedView, { status: 202 })
  create(@Body() body: AttestBody): unknown {
    return body;
  }

  @Get(':note_id')
  @ApiResponseOf(NoteView)
  read(@Param('note_id') id: string): unknown {
    return id;
  }

  @Get()
  @ApiResponseOf(NoteView, { page: true })
  list(): unknown[] {
    return [];
  }

  @Options(':note_id/preview')
  @ApiDoc({ errors: [], agentToken: true, headers: ['DPoP'] })
  preflight(): void {}
}

@Controller('inbox')
@Public()
class InboxController {
  @Get()
  list(): unknown[] {
    return [];
  }
}

@Controller('api/v1/inbox')
@Public()
class ApiInboxController {
  @Get()
  list(): unknown[] {
    return [];
  }
}

@Controller('legacy')
@Public()
class LegacyController {
  @Post()
  @ApiDoc({ deprecated: true })
  create(): void {}
}

class NoteBody {
  @IsString() title!: string;
  @IsOptional() @IsString() summary?: string;
  @IsOptional() @IsString() @Nullable() expires_note?: string | null;
}

@Controller('notes')
@Public()
class NotesController {
  @Post()
  create(@Body() body: NoteBody): NoteBody {
    return body;
  }

  @Get()
  list(): unknown[] {
    return [];
  }
}

type Json = Record<string, unknown>;

describe('the OpenAPI document of the request edge', () => {
  const document = buildOpenApiDocument([NotesController], { title: 't', version: '1' }) as {
    paths: Record<string, Record<string, { responses: Json }>>;
    components: { schemas: Record<string, { properties: Record<string, Json> }> };
  };

  it('types a @Nullable() field as nullable and leaves the others non-nullable', () => {
    const properties = document.components.schemas.NoteBody!.properties;
    expect(properties.expires_note).toEqual({ type: ['string', 'null'] });
    expect(properties.summary).toEqual({ type: 'string' });
  });

  it('gives every operation a summary, even without @ApiDoc', () => {
    expect(document.paths['/notes']!.get).toMatchObject({ summary: 'List (notes)' });
  });

  it('documents 413 and 415 on operations that take a body only', () => {
    expect(Object.keys(document.paths['/notes']!.post!.responses)).toEqual(expect.arrayContaining(['413', '415']));
    expect(Object.keys(document.paths['/notes']!.get!.responses)).not.toContain('413');
  });
});

describe('the OpenAPI document tools accept', () => {
  type Operation = { operationId: string; parameters?: Json[]; security: Json[]; responses: Record<string, Json>; deprecated?: boolean };
  const document = buildOpenApiDocument([SecuredNotesController, InboxController, ApiInboxController, LegacyController], {
    title: 't',
    version: '1',
  }) as {
    info: Json;
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas: Record<string, Json>;
      responses: Record<string, Json>;
      parameters: Record<string, Json>;
      headers: Record<string, Json>;
      securitySchemes: Record<string, Json>;
    };
  };
  const text = JSON.stringify(document);

  it('resolves every $ref inside the document', () => {
    const refs = [...text.matchAll(/"\$ref":"#\/components\/([A-Za-z]+)\/([A-Za-z0-9_]+)"/g)];
    expect(refs.length).toBeGreaterThan(0);
    for (const [, section, name] of refs)
      expect((document.components as Record<string, Record<string, unknown>>)[section!]?.[name!]).toBeDefined();
  });

  it('types an untyped nested object as an open object and a date string without an ambiguous oneOf', () => {
    const attest = document.components.schemas.AttestBody as { properties: Record<string, Json> };
    expect(JSON.stringify(attest)).not.toContain('#/components/schemas/Object');
    expect(text).not.toMatch(/"oneOf":\[\{"format"/);
  });

  it('keeps operation ids unique when two routes share a handler name', () => {
    const ids = Object.values(document.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares a path parameter the handler does not read', () => {
    expect(document.paths['/api/v1/notes/{note_id}/preview']!.options!.parameters).toContainEqual({
      name: 'note_id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });

  it('declares Idempotency-Key, DPoP and X-Delegation-Grant-Id, and Idempotent-Replayed on the answer', () => {
    const create = document.paths['/api/v1/notes']!.post!;
    expect(create.parameters).toEqual(
      expect.arrayContaining([{ $ref: '#/components/parameters/IdempotencyKey' }, { $ref: '#/components/parameters/DelegationGrantId' }]),
    );
    expect(document.paths['/api/v1/notes/{note_id}/preview']!.options!.parameters).toContainEqual({ $ref: '#/components/parameters/DPoP' });
    expect(document.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    expect(create.responses['201']!.headers).toEqual({ 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } });
    expect(create.responses['202']!.headers).toEqual(create.responses['201']!.headers);
  });

  it('marks a deprecated alias and its Deprecation and Sunset headers', () => {
    const legacy = document.paths['/legacy']!.post!;
    expect(legacy.deprecated).toBe(true);
    expect(Object.keys(legacy.responses['201']!.headers as Json)).toEqual(['Deprecation', 'Sunset', 'Link']);
  });

  it('answers errors with one envelope per status, listing its reason codes, and Retry-After on 503', () => {
    const create = document.paths['/api/v1/notes']!.post!;
    expect(create.responses['409']).toEqual({ $ref: '#/components/responses/Error409' });
    expect(create.responses['503']).toEqual({ $ref: '#/components/responses/Error503' });
    expect(JSON.stringify(document.components.responses.Error409)).toContain('note_locked');
    expect(document.components.responses.Error503!.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
  });

  it('describes success bodies declared with @ApiResponseOf, single and paginated', () => {
    expect(document.paths['/api/v1/notes/{note_id}']!.get!.responses['200']!.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/NoteView' } },
    });
    expect(document.paths['/api/v1/notes']!.get!.responses['200']!.content).toMatchObject({
      'application/json': { schema: { properties: { data: { items: { $ref: '#/components/schemas/NoteView' } } } } },
    });
    expect(document.components.schemas.NoteView).toMatchObject({ required: ['id', 'title'] });
  });

  it('describes each success status with its own body, open to added fields while request bodies stay closed', () => {
    const create = document.paths['/api/v1/notes']!.post!;
    expect(create.responses['201']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/NoteView' } } });
    expect(create.responses['202']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/NoteQueuedView' } } });
    expect(document.components.schemas.NoteView).toMatchObject({ additionalProperties: true });
    expect(document.components.schemas.AttestBody).toMatchObject({ additionalProperties: false });
  });

  it('uses the DPoP-bound agent token scheme where the route authenticates one', () => {
    expect(document.paths['/api/v1/notes/{note_id}/preview']!.options!.security).toEqual([{ agentToken: [] }]);
    expect(document.components.securitySchemes.agentToken).toMatchObject({ type: 'http', scheme: 'DPoP' });
    expect(document.info.license).toBeDefined();
  });
});

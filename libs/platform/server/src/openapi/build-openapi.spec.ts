import { Body, Controller, Get, Post } from '@nestjs/common';
import { Public } from '@svc/auth';
import { IsOptional, IsString } from 'class-validator';
import { Nullable } from '../nullable';
import { buildOpenApiDocument } from './build-openapi';

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
  const document = buildOpenApiDocument([NotesController], { title: 't', version: '1' }) as { paths: Record<string, Record<string, { responses: Json }>>; components: { schemas: Record<string, { properties: Record<string, Json> }> } };

  it('types a @Nullable() field as nullable and leaves the others non-nullable', () => {
    const properties = document.components.schemas.NoteBody!.properties;
    expect(properties.expires_note).toEqual({ type: ['string', 'null'] });
    expect(properties.summary).toEqual({ type: 'string' });
  });

  it('documents 413 and 415 on operations that take a body only', () => {
    expect(Object.keys(document.paths['/notes']!.post!.responses)).toEqual(expect.arrayContaining(['413', '415']));
    expect(Object.keys(document.paths['/notes']!.get!.responses)).not.toContain('413');
  });
});

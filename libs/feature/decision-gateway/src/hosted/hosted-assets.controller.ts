import { createHash } from 'node:crypto';
import { Controller, Get, Param, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { hostedError } from './hosted.errors';
import { PostMessageSchemaResponse } from './hosted.responses';
import { POSTMESSAGE_SCHEMAS } from './postmessage-schemas';
import { SVC_SDK_BUNDLE } from './sdk-bundle.generated';

const SDK_ETAG = `"${createHash('sha256').update(SVC_SDK_BUNDLE).digest('base64url').slice(0, 27)}"`;

/**
 * Public static documents of the browser surface: the SDK bundle under the CDN path and the
 * postMessage v2 JSON Schemas. Both are credential-free, so any origin may fetch them
 * (`Access-Control-Allow-Origin: *`, needed for a cross-origin `<script type="module">`).
 */
@Controller()
export class HostedAssetsController {
  /** The browser SDK, one ES module (major version 1 in the path; compatible changes only). */
  @Get('cdn/v1/svc.js')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Browser SDK (ES module): open(), createSession(), <svc-decision>',
    response: 'The browser SDK (ES module)',
    produces: 'text/javascript',
  })
  sdk(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'public, max-age=300')
      .header('etag', SDK_ETAG)
      .header('x-content-type-options', 'nosniff')
      .send(SVC_SDK_BUNDLE);
  }

  /** `envelope.json`, `ready.json`, `resize.json`, `cancel.json`, `{state,complete,error,deadline}.{consent,approval}.json`. */
  @Get('schemas/postmessage/v2/:file')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'JSON Schema (Draft 2020-12) of a postMessage v2 envelope or payload',
    response: 'A JSON Schema (Draft 2020-12)',
    produces: 'application/schema+json',
    errors: [404],
  })
  @ApiResponseOf(PostMessageSchemaResponse)
  schema(@Param('file') file: string, @Res() reply: FastifyReply): FastifyReply {
    const name = file.endsWith('.json') ? file.slice(0, -'.json'.length) : '';
    const schema = Object.prototype.hasOwnProperty.call(POSTMESSAGE_SCHEMAS, name) ? POSTMESSAGE_SCHEMAS[name] : undefined;
    if (!schema) throw hostedError('schema_not_found', 'No such postMessage schema', { file: file.slice(0, 100) });
    return reply
      .header('content-type', 'application/schema+json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=3600')
      .send(JSON.stringify(schema, null, 2));
  }
}

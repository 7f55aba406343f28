import { Controller, Get, Header, Headers, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { SigningKeyStore } from '@svc/key-store';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { RECEIPT_SCHEMA_ID_PATH, RECEIPT_SCHEMA_MEDIA_TYPE, RECEIPT_SCHEMA_PATH, receiptSchemaBytes, receiptSchemaEtag } from '../schema/published-schema';
import { JwksResponse, ReceiptSchemaResponse } from './receipts.response';

/**
 * Anonymous documents a verifier needs offline: the region's JWKS and the receipt schema. The
 * schema is served as the committed file's exact bytes (spec, Versioning 6), at the v2 path and at
 * the path of its own `$id`, with a stable media type and a strong ETag.
 */
@Public()
@Controller()
export class PublicDocumentsController {
  constructor(private readonly keys: SigningKeyStore) {}

  @Get('.well-known/jwks.json')
  @Header('content-type', 'application/jwk-set+json; charset=utf-8')
  // Rotation publishes the next key before it signs; a minute of caching keeps verifiers current.
  @Header('cache-control', 'public, max-age=60')
  @ApiDoc({ tag: 'Receipts', summary: 'The region signing keys (RFC 7517 JWKS), active and still-verifiable', errors: [] })
  @ApiResponseOf(JwksResponse)
  async jwks(): Promise<JwksResponse> {
    return this.keys.jwks();
  }

  @Get(RECEIPT_SCHEMA_PATH.slice(1))
  @ApiDoc({ tag: 'Receipts', summary: 'The published receipt schema svc-cr/2.13 (JSON Schema 2020-12), byte-verbatim', errors: [], produces: RECEIPT_SCHEMA_MEDIA_TYPE, alsoAnswers: [304] })
  @ApiResponseOf(ReceiptSchemaResponse)
  schema(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Buffer | undefined {
    return this.sendSchema(ifNoneMatch, reply);
  }

  @Get(RECEIPT_SCHEMA_ID_PATH.slice(1))
  @ApiDoc({ tag: 'Receipts', summary: 'The receipt schema at its own identifier ($id), byte-verbatim', errors: [], produces: RECEIPT_SCHEMA_MEDIA_TYPE, alsoAnswers: [304] })
  @ApiResponseOf(ReceiptSchemaResponse)
  schemaAtId(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Buffer | undefined {
    return this.sendSchema(ifNoneMatch, reply);
  }

  private sendSchema(ifNoneMatch: string | undefined, reply: FastifyReply): Buffer | undefined {
    const etag = receiptSchemaEtag();
    void reply.header('content-type', RECEIPT_SCHEMA_MEDIA_TYPE).header('cache-control', 'public, max-age=86400').header('etag', etag);
    if (ifNoneMatch === etag) {
      void reply.status(304);
      return undefined;
    }
    return receiptSchemaBytes();
  }
}

import { Controller, Get, Headers, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { SigningKeyStore } from '@svc/key-store';
import { ApiDoc, ApiResponseOf, ifNoneMatches } from '@svc/server';
import type { FastifyReply } from 'fastify';
import {
  RECEIPT_SCHEMA_ID_PATH,
  RECEIPT_SCHEMA_MEDIA_TYPE,
  RECEIPT_SCHEMA_PATH,
  receiptSchemaBytes,
  receiptSchemaEtag,
} from '../schema/published-schema';
import { JwksResponse, ReceiptSchemaResponse } from './receipts.response';

const JWKS_MEDIA_TYPE = 'application/jwk-set+json; charset=utf-8';

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
  @ApiDoc({
    tag: 'Receipts',
    summary: 'The region signing keys (RFC 7517 JWKS), active and still-verifiable: strong ETag, If-None-Match → 304',
    errors: [],
    produces: 'application/jwk-set+json',
    alsoAnswers: [304],
    conditional: true,
  })
  @ApiResponseOf(JwksResponse)
  async jwks(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    // Serialised once per key set; a rotation (here, or its event in another process) changes it.
    const document = await this.keys.jwksDocument();
    // Rotation publishes the next key before it signs; a minute of caching keeps verifiers current.
    void reply.header('etag', document.etag).header('cache-control', 'public, max-age=60');
    if (ifNoneMatches(ifNoneMatch, document.etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).header('content-type', JWKS_MEDIA_TYPE).send(document.body);
  }

  @Get(RECEIPT_SCHEMA_PATH.slice(1))
  @ApiDoc({
    tag: 'Receipts',
    summary: 'The published receipt schema svc-cr/2.13 (JSON Schema 2020-12), byte-verbatim',
    errors: [],
    produces: RECEIPT_SCHEMA_MEDIA_TYPE,
    alsoAnswers: [304],
  })
  @ApiResponseOf(ReceiptSchemaResponse)
  schema(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Buffer | undefined {
    return this.sendSchema(ifNoneMatch, reply);
  }

  @Get(RECEIPT_SCHEMA_ID_PATH.slice(1))
  @ApiDoc({
    tag: 'Receipts',
    summary: 'The receipt schema at its own identifier ($id), byte-verbatim',
    errors: [],
    produces: RECEIPT_SCHEMA_MEDIA_TYPE,
    alsoAnswers: [304],
  })
  @ApiResponseOf(ReceiptSchemaResponse)
  schemaAtId(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Buffer | undefined {
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

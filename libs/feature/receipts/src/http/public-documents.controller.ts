import { Controller, Get, Headers, Req, Res, type OnModuleInit } from '@nestjs/common';
import { Public } from '@svc/auth';
import { SigningKeyStore } from '@svc/key-store';
import { ApiDoc, ApiResponseOf, MemoryAnswers, sendMemoryAnswer, type MemoryAnswer } from '@svc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  RECEIPT_SCHEMA_ID_PATH,
  RECEIPT_SCHEMA_MEDIA_TYPE,
  RECEIPT_SCHEMA_PATH,
  receiptSchemaBytes,
  receiptSchemaEtag,
} from '../schema/published-schema';
import { JwksResponse, ReceiptSchemaResponse } from './receipts.response';

const JWKS_MEDIA_TYPE = 'application/jwk-set+json; charset=utf-8';
/** Rotation publishes the next key before it signs; a minute of caching keeps verifiers current. */
const JWKS_HEADERS = { 'cache-control': 'public, max-age=60' };
const JWKS_ROUTE = '/.well-known/jwks.json';

/**
 * Anonymous documents a verifier needs offline: the region's JWKS and the receipt schema. The
 * schema is served as the committed file's exact bytes (spec, Versioning 6), at the v2 path and at
 * the path of its own `$id`, with a stable media type and a strong ETag.
 */
@Public()
@Controller()
export class PublicDocumentsController implements OnModuleInit {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly memoryAnswers: MemoryAnswers,
  ) {}

  /**
   * The serialised JWKS is answered before Nest's pipeline while it is in memory and fresh; a
   * rotation (here, or its event in another process) drops it, and the next request reaches
   * {@link jwks}, which reads the new key set.
   */
  onModuleInit(): void {
    this.memoryAnswers.serve(JWKS_ROUTE, () => {
      const document = this.keys.currentJwksDocument();
      return document && jwksAnswerOf(document);
    });
  }

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
  async jwks(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Serialised once per key set; a rotation (here, or its event in another process) changes it.
    sendMemoryAnswer(request, reply, jwksAnswerOf(await this.keys.jwksDocument()));
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

/** The 200 and 304 of the serialised JWKS, the same from memory and from the route. */
function jwksAnswerOf(document: { etag: string; body: string }): MemoryAnswer {
  return { etag: document.etag, headers: JWKS_HEADERS, contentType: JWKS_MEDIA_TYPE, body: document.body };
}

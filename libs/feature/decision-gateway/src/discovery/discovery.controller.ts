import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { ApiCatalogResponse, OpenApiDocumentResponse } from './discovery.response';
import openApiDocument from './openapi.json';

/** Discovery documents: the OpenAPI description (3.1) and the RFC 9727 API catalog. */
@Public()
@Controller('.well-known')
export class DiscoveryController {
  constructor(private readonly config: PlatformConfig) {}

  @Get('openapi')
  @Header('content-type', 'application/vnd.oai.openapi+json; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({ summary: 'This API as an OpenAPI 3.1 document', errors: [] })
  @ApiResponseOf(OpenApiDocumentResponse)
  openapi(): unknown {
    return { ...openApiDocument, servers: [{ url: this.config.publicBaseUrl }] };
  }

  @Get('api-catalog')
  @Header('content-type', 'application/linkset+json; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({ summary: 'RFC 9727 API catalog (a linkset pointing at the OpenAPI document)', errors: [] })
  @ApiResponseOf(ApiCatalogResponse)
  apiCatalog(): ApiCatalogResponse {
    const base = this.config.publicBaseUrl;
    return {
      linkset: [
        {
          anchor: `${base}/api/v1/`,
          'service-desc': [{ href: `${base}/.well-known/openapi`, type: 'application/vnd.oai.openapi+json' }],
          'service-doc': [{ href: `${base}/.well-known/openapi`, type: 'application/vnd.oai.openapi+json' }],
        },
      ],
    };
  }
}

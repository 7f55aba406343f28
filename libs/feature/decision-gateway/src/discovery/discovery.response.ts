import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

/** 200 of GET /.well-known/openapi: this document (OpenAPI 3.1). */
export class OpenApiDocumentResponse {
  @IsIn(['3.1.0']) openapi!: string;
  @IsObject() info!: object;
  @IsObject({ each: true }) servers!: object[];
  @IsObject() paths!: object;
  @IsOptional() @IsObject() webhooks?: object;
  @IsObject() components!: object;
}

export class LinkTargetResponse {
  @IsString() href!: string;
  @IsString() type!: string;
}

export class LinksetEntryResponse {
  @IsString() anchor!: string;
  @ValidateNested({ each: true }) @Type(() => LinkTargetResponse) 'service-desc'!: LinkTargetResponse[];
  @ValidateNested({ each: true }) @Type(() => LinkTargetResponse) 'service-doc'!: LinkTargetResponse[];
}

/** 200 of GET /.well-known/api-catalog: an RFC 9727 linkset. */
export class ApiCatalogResponse {
  @ValidateNested({ each: true }) @Type(() => LinksetEntryResponse) linkset!: LinksetEntryResponse[];
}

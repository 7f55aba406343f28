import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ApplicationResponse } from './applications/application.response';

/** The answer of GET /api/v1/me, published in the OpenAPI document. */
export class IdentityResponse {
  @IsIn(['identity']) object!: 'identity';
  /** `{type, id, scopes}` of the presented credential. */
  @IsObject() credential!: { type: string; id: string; scopes: readonly string[] };
  @ValidateNested() @Type(() => ApplicationResponse) application!: Record<string, unknown>;
  @IsString() region!: string;
  /** With X-Delegation-Grant-Id: `{principal_id, delegation_grant_id}`. */
  @IsOptional() @IsObject() acting_for?: { principal_id: string; delegation_grant_id: string };
}

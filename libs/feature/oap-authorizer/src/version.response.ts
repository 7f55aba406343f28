import { IsObject, IsString } from 'class-validator';

/** 200 of GET /api/v1/oap/version: wire versions, regional issuers, chronicle genesis hashes and conformance. */
export class OapVersionResponse {
  @IsString() oap_ver!: string;
  @IsString({ each: true }) supported!: string[];
  @IsString() current!: string;
  @IsString({ each: true }) deprecated!: string[];
  /** Region → issuer URL (null when the region is not configured). */
  @IsObject() regional_issuers!: Record<string, string | null>;
  /** Region → genesis hash of its audit chain (null when it did not answer within 500 ms). */
  @IsObject() chronicle_genesis_hashes!: Record<string, string | null>;
  @IsString() oap_conformance!: string;
  @IsString({ each: true }) conformance_capabilities!: string[];
  @IsString() oversight_conformance!: string;
  @IsString({ each: true }) oversight_conformance_levels!: string[];
  @IsString() spec_url!: string;
}

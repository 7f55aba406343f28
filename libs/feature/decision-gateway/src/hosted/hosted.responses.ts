import { Nullable } from '@svc/server';
import { IsBoolean, IsIn, IsObject, IsString } from 'class-validator';

/** A postMessage v2 JSON Schema (Draft 2020-12) as `/schemas/postmessage/v2/{file}` serves it. */
export class PostMessageSchemaResponse {
  @IsString() $schema!: string;
  @IsString() $id!: string;
  @IsString() title!: string;
  @IsIn(['object']) type!: 'object';
  @IsObject() properties!: Record<string, unknown>;
  @IsString({ each: true }) required!: string[];
  @IsBoolean() additionalProperties!: boolean;
}

/** The wire shape of `activityView`: one browser-surface event of an application. */
export class ActivityEventResponse {
  @IsString() id!: string;
  @IsIn(['activity_event']) object!: 'activity_event';
  @IsString() type!: string;
  @IsString() @Nullable() origin!: string | null;
  @IsString() @Nullable() method!: string | null;
  @IsString() @Nullable() path!: string | null;
  @IsString() occurred_at!: string;
}

import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_WEBHOOK_URL_LENGTH } from '../subscriptions/webhook-url';
import { STREAM_STATUSES } from './ssf-stream';

const STREAM_ID = /^ssfs_[a-z2-7]{20}$/;
const STREAM_ID_MESSAGE = 'must be a stream_id returned by this transmitter';

/** SSF 1.0 §8.1.1 `delivery`: RFC 8935 push to `endpoint_url`. */
export class StreamDeliveryBody {
  /** `urn:ietf:rfc:8935` (push); other methods are refused by name. */
  @IsDefined() @IsString() @MaxLength(200) method!: string;
  /** The receiver's push endpoint: https (development applications also http://localhost, http://127.0.0.1). */
  @IsDefined() @IsString() @MinLength(1) @MaxLength(MAX_WEBHOOK_URL_LENGTH) endpoint_url!: string;
  /** Sent verbatim as the `Authorization` header of every push (RFC 8935 §2); stored encrypted, never shown back. */
  @ValidateIf((body: StreamDeliveryBody) => body.authorization_header !== undefined)
  @IsString()
  @Matches(/^[\x21-\x7e][\x20-\x7e]*$/, { message: 'must be printable ASCII (an HTTP header value)' })
  @MaxLength(4096)
  authorization_header?: string;
}

/** Body of `POST /api/v1/ssf/streams` (SSF 1.0 §8.1.1.1). */
export class CreateStreamBody {
  @IsDefined() @ValidateNested() @Type(() => StreamDeliveryBody) delivery!: StreamDeliveryBody;
  /** Event type URIs the receiver wants; `events_delivered` is their intersection with `events_supported`. */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  events_requested!: string[];
  @ValidateIf((body: CreateStreamBody) => body.description !== undefined) @IsString() @MaxLength(500) description?: string;
}

/** Body of `PATCH /api/v1/ssf/streams` (SSF 1.0 §8.1.1.3): the members given replace the stored ones. */
export class UpdateStreamBody {
  @IsDefined() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id!: string;
  @ValidateIf((body: UpdateStreamBody) => body.delivery !== undefined)
  @ValidateNested()
  @Type(() => StreamDeliveryBody)
  delivery?: StreamDeliveryBody;
  @ValidateIf((body: UpdateStreamBody) => body.events_requested !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  events_requested?: string[];
  @ValidateIf((body: UpdateStreamBody) => body.description !== undefined) @IsString() @MaxLength(500) description?: string;
}

/** Body of `PUT /api/v1/ssf/streams` (SSF 1.0 §8.1.1.4): the whole receiver-supplied configuration. */
export class ReplaceStreamBody {
  @IsDefined() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id!: string;
  @IsDefined() @ValidateNested() @Type(() => StreamDeliveryBody) delivery!: StreamDeliveryBody;
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  events_requested!: string[];
  @ValidateIf((body: ReplaceStreamBody) => body.description !== undefined) @IsString() @MaxLength(500) description?: string;
}

/** Query naming one stream (`GET` and `DELETE` of the configuration, `GET` of the status). */
export class StreamIdQuery {
  @IsDefined() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id!: string;
}

/** Query of `GET /api/v1/ssf/streams`: one stream, or all of the application's when absent. */
export class OptionalStreamIdQuery {
  @IsOptional() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id?: string;
}

/** Body of `POST /api/v1/ssf/status` (SSF 1.0 §8.1.2.2). */
export class UpdateStreamStatusBody {
  @IsDefined() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id!: string;
  /** `enabled`, `paused` (events are held and pushed once enabled) or `disabled` (events are dropped). */
  @IsDefined() @IsIn(STREAM_STATUSES) status!: (typeof STREAM_STATUSES)[number];
  @ValidateIf((body: UpdateStreamStatusBody) => body.reason !== undefined) @IsString() @MaxLength(500) reason?: string;
}

/** Body of `POST /api/v1/ssf/verify` (SSF 1.0 §8.1.4.2). */
export class VerifyStreamBody {
  @IsDefined() @IsString() @Matches(STREAM_ID, { message: STREAM_ID_MESSAGE }) stream_id!: string;
  /** Echoed in the verification event's `state`. */
  @ValidateIf((body: VerifyStreamBody) => body.state !== undefined) @IsString() @MaxLength(500) state?: string;
}

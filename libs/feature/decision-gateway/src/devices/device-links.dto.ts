import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';

/** The keys of a browser's PushSubscription (`subscription.toJSON().keys`). */
export class PushSubscriptionKeysBody {
  /** The phone's P-256 public key (base64url, 65 bytes uncompressed: 87 characters, padding allowed). */
  @IsDefined()
  @IsString()
  @MinLength(86)
  @MaxLength(90)
  p256dh!: string;

  /** The 16-byte authentication secret (base64url). */
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{21,24}={0,2}$/, { message: 'auth must be base64url of a 16-byte secret' })
  auth!: string;
}

/** A browser's PushSubscription as `toJSON()` gives it. */
export class PushSubscriptionBody {
  /** The push service URL of this subscription (one of the configured push services). */
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @Matches(/^https?:\/\/\S+$/, { message: 'endpoint must be an http(s) URL' })
  endpoint!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PushSubscriptionKeysBody)
  keys!: PushSubscriptionKeysBody;
}

/** Body of POST /api/v1/device_links/registrations: the phone registers with the link code it scanned. */
export class RegisterDeviceBody {
  /** The one-time link code from the inbox page (QR code or typed). */
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'link_code must be a link code from the inbox page' })
  link_code!: string;

  /** A name the person recognises the device by, e.g. "Ada's phone". */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  device_name?: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PushSubscriptionBody)
  subscription!: PushSubscriptionBody;
}

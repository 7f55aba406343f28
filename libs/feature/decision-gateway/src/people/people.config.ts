import { REGIONS, intFromEnv, regionCountries, type PlatformConfig, type Region } from '@svc/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { OAuthConfig } from '../oauth/oauth.config';

/**
 * Variables of people and sign-in, validated at boot with every feature's (decision-gateway's config
 * class extends this one, which extends the OpenID provider's).
 */
export class PeopleConfig extends OAuthConfig {
  /**
   * SMTP server the one-time codes are sent through, e.g. `smtp://127.0.0.1:1025` or
   * `smtps://user:pass@mail.example.com:465`. Without it no code can be sent: email sign-in and
   * sign-up answer 503 `mail_unavailable`.
   */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** Sender of the code emails (RFC 5322 address, optionally with a display name). */
  @IsString()
  @MaxLength(320)
  MAIL_FROM = 'Sign-in <no-reply@localhost>';

  /**
   * Home countries (ISO 3166-1 alpha-2) a person may choose, as `CC=region` pairs, added to the
   * residency table (each region's own country from REGION_COUNTRIES is always included).
   */
  @IsOptional()
  @Matches(/^[A-Z]{2}=[a-z]{2}(,[A-Z]{2}=[a-z]{2})*$/, { message: 'PERSON_COUNTRIES must be CC=region pairs separated by commas' })
  PERSON_COUNTRIES?: string;

  /**
   * Base64 of the 32-byte key, the same in every region of a deployment, under which a region that
   * finds no account for a sign-in email asks the other regions for the person's home: only an
   * HMAC-SHA256 of the normalised email under this key crosses. Unset, no region is asked and the
   * address gets the "no account here" note.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'PEOPLE_LOOKUP_KEY must be base64 of exactly 32 bytes' })
  PEOPLE_LOOKUP_KEY?: string;

  /**
   * Web Push (device links): the VAPID key pair (base64url: the 65-byte uncompressed P-256 public
   * key and the 32-byte private key, as `web-push generate-vapid-keys` prints them) and the contact
   * (`mailto:` or `https:` URL) push services see. All three are needed: without them push is off,
   * device links say so (`push.enabled: false`) and a phone cannot register (503 `push_not_configured`).
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{87}$/, { message: 'WEB_PUSH_VAPID_PUBLIC_KEY must be base64url of a 65-byte P-256 public key' })
  WEB_PUSH_VAPID_PUBLIC_KEY?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'WEB_PUSH_VAPID_PRIVATE_KEY must be base64url of a 32-byte P-256 private key' })
  WEB_PUSH_VAPID_PRIVATE_KEY?: string;

  @IsOptional()
  @Matches(/^(mailto:\S+@\S+|https:\/\/\S+)$/, { message: 'WEB_PUSH_SUBJECT must be a mailto: or https: URL' })
  WEB_PUSH_SUBJECT?: string;

  /**
   * Origins of the push services a phone's subscription may point at (comma-separated). Pushes go
   * only there, so a subscription cannot turn the platform into a request forwarder. Default: the
   * push services of the major browsers.
   */
  @IsString()
  @Matches(/^https?:\/\/[^\s,/]+(,https?:\/\/[^\s,/]+)*$/, { message: 'WEB_PUSH_ENDPOINT_ORIGINS must be origins separated by commas' })
  WEB_PUSH_ENDPOINT_ORIGINS = 'https://fcm.googleapis.com,https://updates.push.services.mozilla.com,https://web.push.apple.com';

  /** Lifetime of a one-time email code. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(60)
  @Max(3_600)
  EMAIL_CODE_TTL_SECONDS = 600;

  /** Lifetime of a browser sign-in (absolute, from the sign-in). */
  @Transform(intFromEnv)
  @IsInt()
  @Min(300)
  @Max(2_592_000)
  PERSON_SESSION_TTL_SECONDS = 1_209_600;
}

/** Country → region of every home country a person may choose. */
export function personCountries(
  platform: Pick<PlatformConfig, 'REGION_COUNTRIES'>,
  people: Pick<PeopleConfig, 'PERSON_COUNTRIES'>,
): ReadonlyMap<string, Region> {
  const result = new Map<string, Region>();
  for (const [region, country] of Object.entries(regionCountries(platform)) as Array<[Region, string]>) result.set(country, region);
  for (const pair of people.PERSON_COUNTRIES?.split(',') ?? []) {
    const [country, region] = pair.split('=', 2) as [string, string];
    if ((REGIONS as readonly string[]).includes(region)) result.set(country, region as Region);
  }
  return result;
}

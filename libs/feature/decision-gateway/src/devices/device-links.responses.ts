import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, ValidateNested } from 'class-validator';
import type { DeviceLink } from './device-link';

/** A linked device as its person sees it (never the push subscription's endpoint or keys). */
export class DeviceLinkResponse {
  @IsString() id!: string;
  @IsIn(['device_link']) object!: 'device_link';
  @IsIn(['pending', 'active', 'revoked']) status!: 'pending' | 'active' | 'revoked';
  @IsString() @Nullable() device_name!: string | null;
  /** The push service's origin (e.g. https://fcm.googleapis.com) once the device registered. */
  @IsString() @Nullable() push_service!: string | null;
  @IsString() created_at!: string;
  /** Until when the link code can be used (pending links). */
  @IsString() link_code_expires_at!: string;
  @IsString() @Nullable() linked_at!: string | null;
  @IsString() @Nullable() revoked_at!: string | null;
  @IsString() @Nullable() last_push_at!: string | null;
  /** HTTP status the push service gave the last push (0: unreachable). */
  @IsInt() @Nullable() last_push_status!: number | null;
}

export function deviceLinkView(link: DeviceLink): DeviceLinkResponse {
  let pushService: string | null = null;
  if (link.pushEndpoint) {
    try {
      pushService = new URL(link.pushEndpoint).origin;
    } catch {
      pushService = null;
    }
  }
  return {
    id: link.id,
    object: 'device_link',
    status: link.status,
    device_name: link.deviceName,
    push_service: pushService,
    created_at: link.createdAt.toISOString(),
    link_code_expires_at: link.codeExpiresAt.toISOString(),
    linked_at: link.linkedAt?.toISOString() ?? null,
    revoked_at: link.revokedAt?.toISOString() ?? null,
    last_push_at: link.lastPushAt?.toISOString() ?? null,
    last_push_status: link.lastPushStatus,
  };
}

/** Whether Web Push is on, and the VAPID public key a phone subscribes with. */
export class PushSettingsResponse {
  @IsBoolean() enabled!: boolean;
  /** base64url VAPID public key (`applicationServerKey`), null when push is off. */
  @IsString() @Nullable() vapid_public_key!: string | null;
}

export class DeviceLinkEnvelopeResponse {
  @ValidateNested() @Type(() => DeviceLinkResponse) device_link!: DeviceLinkResponse;
}

/** 201 of POST /api/v1/device_links: the new pending link and its one-time code (shown once). */
export class DeviceLinkCreatedResponse {
  @ValidateNested() @Type(() => DeviceLinkResponse) device_link!: DeviceLinkResponse;
  /** One-time code the phone registers with (43 base64url characters); stored only as SHA-256. */
  @IsString() link_code!: string;
  /** The page the phone opens (the code in the fragment, never sent to a server by the browser). */
  @IsString() link_url!: string;
  /** The link URL as a QR code (SVG document) for the phone's camera; null is reserved for a deployment that renders none (show link_code and link_url then). */
  @IsString() @Nullable() qr_svg!: string | null;
  @ValidateNested() @Type(() => PushSettingsResponse) push!: PushSettingsResponse;
}

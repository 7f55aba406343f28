/** A person's linked device (a phone), and its Web Push subscription once it registered. */
export interface DeviceLink {
  id: string;
  personId: string;
  /** pending: code made, phone not yet registered; active: receives pushes; revoked: never again. */
  status: 'pending' | 'active' | 'revoked';
  codeExpiresAt: Date;
  deviceName: string | null;
  pushEndpoint: string | null;
  pushP256dh: string | null;
  pushAuth: string | null;
  createdAt: Date;
  linkedAt: Date | null;
  revokedAt: Date | null;
  lastPushAt: Date | null;
  lastPushStatus: number | null;
}

/** Active and pending links a person may hold at once. */
export const MAX_DEVICE_LINKS = 10;
/** Lifetime of a link code: the person scans it right away. */
export const LINK_CODE_TTL_SECONDS = 600;

import type { PermissionMapping, PurposeTags } from './mailing-audience';

/** A marketing permission as the tool stores it on a member. */
export interface PermissionWrite {
  marketing_permission_id: string;
  enabled: boolean;
}

/** A tag change as the tool's tags endpoint takes it. */
export interface TagWrite {
  name: string;
  status: 'active' | 'inactive';
}

/** What one record event writes to the member. */
export interface MemberWrite {
  permissions: PermissionWrite[];
  tags: TagWrite[];
}

/** A purpose's standing after a record event: granted, or not (declined or withdrawn). */
export type PurposeState = 'granted' | 'declined';

/**
 * Translates purpose states into the member's marketing permissions and tags. Only purposes the
 * integration maps are written; a purpose the event does not mention keeps what the tool has.
 * A tag wanted active by one purpose wins over the same tag made inactive by another.
 */
export function memberWrite(
  states: ReadonlyMap<string, PurposeState>,
  permissions: readonly PermissionMapping[],
  tags: readonly PurposeTags[],
): MemberWrite {
  const permissionWrites = permissions
    .filter((p) => states.has(p.purpose))
    .map((p) => ({ marketing_permission_id: p.marketing_permission_id, enabled: states.get(p.purpose) === 'granted' }));
  const tagStatus = new Map<string, TagWrite['status']>();
  for (const t of tags) {
    const state = states.get(t.purpose);
    if (!state) continue;
    const [active, inactive] = state === 'granted' ? [t.granted, t.declined] : [t.declined, t.granted];
    for (const name of inactive) if (!tagStatus.has(name)) tagStatus.set(name, 'inactive');
    for (const name of active) tagStatus.set(name, 'active');
  }
  return { permissions: permissionWrites, tags: [...tagStatus].map(([name, status]) => ({ name, status })) };
}

/** Every purpose the integration writes (mapped to a permission or to tags). */
export function writtenPurposes(permissions: readonly PermissionMapping[], tags: readonly PurposeTags[]): string[] {
  return [...new Set([...permissions.map((p) => p.purpose), ...tags.map((t) => t.purpose)])];
}

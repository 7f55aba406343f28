import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DomainError } from '@svc/errors';

/** Query of every list endpoint: `limit` (1–200, default 50) and an opaque `cursor`. */
export class PageQuery {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** A page of a list: `next_cursor` is null only when nothing follows, so no list is ever truncated silently. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;

/** Encodes a keyset position as an opaque cursor. */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Decodes a cursor made by encodeCursor; a forged or foreign one is a 400 naming the field. */
export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, string> {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const result = {} as Record<K, string>;
    for (const key of keys) {
      const value = parsed[key];
      if (typeof value !== 'string' && typeof value !== 'number') throw new Error('missing key');
      result[key] = String(value);
    }
    return result;
  } catch {
    throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
  }
}

/**
 * Builds a page from rows fetched with `limit + 1`: the extra row only proves that more follow.
 */
export function toPage<Row, T>(
  rows: Row[],
  limit: number,
  map: (row: Row) => T,
  positionOf: (row: Row) => Record<string, string | number>,
): Page<T> {
  const hasMore = rows.length > limit;
  const visible = hasMore ? rows.slice(0, limit) : rows;
  const last = visible[visible.length - 1];
  return {
    data: visible.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? encodeCursor(positionOf(last)) : null,
  };
}

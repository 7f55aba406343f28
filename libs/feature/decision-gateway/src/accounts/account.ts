import type { AccountRole } from '@svc/auth';

/** An organisation account as stored: it owns applications; people are its members. */
export interface Account {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A person's membership of an account. */
export interface AccountMember {
  accountId: string;
  personId: string;
  role: AccountRole;
  createdAt: Date;
  updatedAt: Date;
}

/** Roles an account token may carry: never `owner` (ownership belongs to one person). */
export const ACCOUNT_TOKEN_ROLES = ['admin', 'developer', 'auditor'] as const;
export type AccountTokenRole = (typeof ACCOUNT_TOKEN_ROLES)[number];

/** An account token as listed; its secret appears once, in the answer of issue. */
export interface AccountTokenRecord {
  id: string;
  accountId: string;
  name: string;
  role: AccountTokenRole;
  createdAt: Date;
  revokedAt: Date | null;
}

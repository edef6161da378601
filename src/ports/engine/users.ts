import type { Role, User } from '../../domain/index.js';
import type { AuditEntryDraft } from './change-log.js';
import type { Page, Stale } from './common.js';

export type InsertUserOutcome = { readonly ok: true } | { readonly ok: false; readonly code: 'USERNAME_TAKEN' };

export interface SetRoleInput {
  readonly userId: string;
  /** The role the application read; the update applies only if the stored role is still this. */
  readonly expectedRole: Role;
  readonly role: Role;
  /** The audit-trail entry of the organizer's or admin's change, written in the same transaction when it commits. */
  readonly audit?: AuditEntryDraft | null | undefined;
}

export type SetRoleOutcome =
  | { readonly ok: true; readonly user: User }
  | { readonly ok: false; readonly code: 'USER_NOT_FOUND' }
  | { readonly ok: false; readonly code: 'LAST_ADMIN' }
  | Stale<'user'>;

export interface UserSearch extends Page {
  /**
   * Users whose username key (src/domain/username.ts usernameKey: case and compatibility forms
   * folded) starts with this key; '' for everyone.
   */
  readonly keyPrefix: string;
}

export interface UserStore {
  /**
   * One page of users in username-key order whose key starts with `keyPrefix`: a range read of the
   * unique index on the key (never a scan of the table), `limit` <= limits.listPageSizeMax.
   */
  listUsers(search: UserSearch): Promise<User[]>;
  getUser(userId: string): Promise<User | null>;
  /**
   * By the exact name, else by its key (case and Unicode compatibility forms ignored: the key is
   * src/domain/username.ts usernameKey, stored in its own uniquely indexed column).
   */
  findUserByUsername(username: string): Promise<User | null>;
  /**
   * Inserts the user. Outcomes: ok; USERNAME_TAKEN when the unique index on the username key
   * refuses it (never a raw error).
   */
  insertUser(user: User): Promise<InsertUserOutcome>;
  /**
   * Precondition: the user exists (else USER_NOT_FOUND) and its stored role is `expectedRole`
   * (else stale 'user'). Guard, decided inside the operation: when the user is an ADMIN and `role`
   * is not ADMIN, the number of ADMIN accounts counted in the same transaction must be at least 2,
   * else LAST_ADMIN and nothing changes. Two admins demoting each other at the same time leave one
   * (PostgreSQL: lock the ADMIN rows, e.g. SELECT ... WHERE role='ADMIN' FOR UPDATE, before
   * counting; READ COMMITTED alone would let both counts see 2).
   * Effect: role = `role`. Returns the user as stored after the change.
   */
  setRole(input: SetRoleInput): Promise<SetRoleOutcome>;
  /** Effect: the user's password hash is replaced. false when no such user. */
  setPasswordHash(userId: string, passwordHash: string): Promise<boolean>;
}

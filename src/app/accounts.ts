import type { Role, User } from '../domain/index.js';
import { usernameDisplayForm } from '../domain/username.js';
import type { PasswordHasher } from '../ports/security.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { AppError, found } from './errors.js';
import { again, done, withStaleRetries } from './stale-retry.js';

export async function register(ctx: AppContext, username: string, password: string, role: Role = 'BUYER'): Promise<User> {
  const user: User = {
    userId: ctx.ids.newId('user'),
    username: usernameDisplayForm(username),
    passwordHash: await ctx.passwords.hash(password),
    role,
    createdAt: ctx.clock.now(),
  };
  // The store refuses a name whose key (case and compatibility forms ignored) is taken.
  const inserted = await ctx.store.insertUser(user);
  if (!inserted.ok) throw new AppError('USERNAME_TAKEN', 'this username is taken');
  return user;
}

/**
 * A hash of the hasher's current strength that no account has: an unknown username is verified
 * against it, so it costs the same scrypt as a known one and timing does not tell which names exist.
 */
const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();
function dummyHash(passwords: PasswordHasher): Promise<string> {
  let hash = dummyHashes.get(passwords);
  if (hash === undefined) {
    hash = passwords.hash('no account has this password hash');
    dummyHashes.set(passwords, hash);
  }
  return hash;
}

/** The same answer, after the same work, for an unknown user and a wrong password. */
export async function authenticate(ctx: AppContext, username: string, password: string): Promise<User> {
  const user = await ctx.store.findUserByUsername(username);
  const valid = await ctx.passwords.verify(password, user?.passwordHash ?? (await dummyHash(ctx.passwords)));
  if (!valid || user === null) throw new AppError('INVALID_CREDENTIALS', 'wrong username or password');
  return user;
}

/** What ensureAdmin found and did, for the start to log. */
export interface AdminBootstrap {
  readonly outcome: 'CREATED' | 'KEPT' | 'PASSWORD_UPDATED' | 'ROLE_RESTORED' | 'NAME_TAKEN_BY_OTHER';
  readonly user: User;
}

/**
 * Makes sure the configured admin exists (run at start). The configuration is the operator's
 * authority, but data a user can change must never stop a start:
 * - no such account: it is created as ADMIN;
 * - an ADMIN account: kept, and a changed TICKETRUSH_ADMIN_PASSWORD becomes its password;
 * - a non-ADMIN account with the configured password: the operator's own account, demoted while
 *   the server ran; it is made ADMIN again;
 * - a non-ADMIN account with another password: someone registered that name first. It is never
 *   promoted; the start goes on and the caller logs a warning.
 */
export async function ensureAdmin(ctx: AppContext, username: string, password: string): Promise<AdminBootstrap> {
  const existing = await ctx.store.findUserByUsername(username);
  if (existing !== null) return keepAdmin(ctx, existing, password);
  try {
    return { outcome: 'CREATED', user: await register(ctx, username, password, 'ADMIN') };
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'USERNAME_TAKEN')) throw error;
  }
  // Another process starting at the same moment created it between the read and the insert (the
  // unique username key let one insert through): decide on the account as stored.
  return keepAdmin(ctx, found(await ctx.store.findUserByUsername(username), 'USER_NOT_FOUND', 'the configured admin vanished during the start'), password);
}

async function keepAdmin(ctx: AppContext, existing: User, password: string): Promise<AdminBootstrap> {
  const passwordMatches = await ctx.passwords.verify(password, existing.passwordHash);
  if (existing.role !== 'ADMIN') {
    if (!passwordMatches) return { outcome: 'NAME_TAKEN_BY_OTHER', user: existing };
    await ctx.store.setRole({ userId: existing.userId, expectedRole: existing.role, role: 'ADMIN' });
    return { outcome: 'ROLE_RESTORED', user: { ...existing, role: 'ADMIN' } };
  }
  if (passwordMatches) return { outcome: 'KEPT', user: existing };
  const passwordHash = await ctx.passwords.hash(password);
  await ctx.store.setPasswordHash(existing.userId, passwordHash);
  return { outcome: 'PASSWORD_UPDATED', user: { ...existing, passwordHash } };
}

/**
 * Gives a user a role. Taking ADMIN from the last admin is refused inside the store's operation
 * (the count and the update commit together), so two admins demoting each other at once cannot
 * leave none.
 */
export async function setRole(ctx: AppContext, username: string, role: Role, actor: Actor | null = null): Promise<User> {
  return withStaleRetries('user', async () => {
    const user = found(await ctx.store.findUserByUsername(username), 'USER_NOT_FOUND', 'no such user');
    const audit = auditDraft(ctx, actor, {
      action: role === user.role ? 'user.role_confirmed' : user.role === 'BUYER' ? 'user.role_granted' : role === 'BUYER' ? 'user.role_withdrawn' : 'user.role_changed',
      entityType: 'user', entityId: user.userId, showId: null, before: { username: user.username, role: user.role }, after: { username: user.username, role },
    });
    const outcome = await ctx.store.setRole({ userId: user.userId, expectedRole: user.role, role, audit });
    if (outcome.ok) return done(outcome.user);
    if ('stale' in outcome) return again(outcome);
    if (outcome.code === 'LAST_ADMIN') throw new AppError('LAST_ADMIN', 'this is the last ADMIN account; make another user ADMIN first');
    throw new AppError('USER_NOT_FOUND', 'no such user');
  });
}

export async function getUser(ctx: AppContext, userId: string): Promise<User | null> {
  return ctx.store.getUser(userId);
}

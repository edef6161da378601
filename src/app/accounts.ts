import type { Role, User } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found } from './errors.js';

export async function register(ctx: AppContext, username: string, password: string, role: Role = 'BUYER'): Promise<User> {
  const user: User = {
    userId: ctx.ids.newId('user'),
    username,
    passwordHash: await ctx.passwords.hash(password),
    role,
    createdAt: ctx.clock.now(),
  };
  const inserted = await ctx.store.transaction((tx) => tx.users.insert(user));
  if (!inserted) throw new AppError('USERNAME_TAKEN', 'this username is taken');
  return user;
}

/** The same answer for an unknown user and a wrong password, so usernames cannot be probed. */
export async function authenticate(ctx: AppContext, username: string, password: string): Promise<User> {
  const user = await ctx.store.read((r) => r.users.findByUsername(username));
  const valid = user !== null && (await ctx.passwords.verify(password, user.passwordHash));
  if (!valid || user === null) throw new AppError('INVALID_CREDENTIALS', 'wrong username or password');
  return user;
}

/**
 * Makes sure the configured admin exists with the configured password (run at start). A buyer who
 * registered that username first is never promoted by it: the start fails instead, so a
 * configuration cannot hand a stranger's account the ADMIN role.
 */
export async function ensureAdmin(ctx: AppContext, username: string, password: string): Promise<User> {
  const existing = await ctx.store.read((r) => r.users.findByUsername(username));
  if (existing === null) return register(ctx, username, password, 'ADMIN');
  if (existing.role !== 'ADMIN') {
    throw new AppError('USERNAME_TAKEN', `TICKETRUSH_ADMIN_USER names the existing ${existing.role} account "${username}"; choose another username, or have an admin promote it`);
  }
  if (await ctx.passwords.verify(password, existing.passwordHash)) return existing;
  // The operator changed TICKETRUSH_ADMIN_PASSWORD: the configured password is the admin's password.
  const passwordHash = await ctx.passwords.hash(password);
  await ctx.store.transaction((tx) => tx.users.setPasswordHash(existing.userId, passwordHash));
  return { ...existing, passwordHash };
}

export async function setRole(ctx: AppContext, username: string, role: Role): Promise<User> {
  return ctx.store.transaction(async (tx) => {
    const user = found(await tx.users.findByUsername(username), 'USER_NOT_FOUND', 'no such user');
    await tx.users.setRole(user.userId, role);
    return { ...user, role };
  });
}

export async function getUser(ctx: AppContext, userId: string): Promise<User | null> {
  return ctx.store.read((r) => r.users.get(userId));
}

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

/** Makes sure the configured admin exists with the ADMIN role (run at start). */
export async function ensureAdmin(ctx: AppContext, username: string, password: string): Promise<User> {
  const existing = await ctx.store.read((r) => r.users.findByUsername(username));
  if (existing === null) return register(ctx, username, password, 'ADMIN');
  if (existing.role !== 'ADMIN') await ctx.store.transaction((tx) => tx.users.setRole(existing.userId, 'ADMIN'));
  return { ...existing, role: 'ADMIN' };
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

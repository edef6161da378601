import { limits, type Role } from '../domain/index.js';
import { usernameKey } from '../domain/username.js';
import type { AppContext } from './context.js';

export interface UserListItem {
  userId: string;
  username: string;
  role: Role;
  createdAt: string;
}

/**
 * A page of users whose name starts with `q` (case and compatibility forms ignored, as at sign-in),
 * in name order. One more than the page is read to say whether another page follows.
 */
export async function listUsers(ctx: AppContext, query: { q: string; limit: number; offset: number }): Promise<{ users: UserListItem[]; more: boolean }> {
  const limit = Math.min(query.limit, limits.listPageSizeMax);
  const found = await ctx.store.listUsers({ keyPrefix: usernameKey(query.q), limit: limit + 1, offset: query.offset });
  return {
    users: found.slice(0, limit).map((u) => ({ userId: u.userId, username: u.username, role: u.role, createdAt: new Date(u.createdAt).toISOString() })),
    more: found.length > limit,
  };
}

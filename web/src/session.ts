import { computed, signal } from '@preact/signals';

export type Role = 'BUYER' | 'STAFF' | 'ADMIN';
export interface Session {
  readonly token: string;
  readonly username: string;
  readonly role: Role;
  readonly expiresAt: number;
}

const storageKey = 'tr.session';

function load(): Session | null {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey) ?? 'null') as Session | null;
    return saved !== null && saved.expiresAt > Date.now() ? saved : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(load());
export const role = computed(() => session.value?.role ?? null);

export function signIn(next: Session): void {
  session.value = next;
  localStorage.setItem(storageKey, JSON.stringify(next));
}

export function signOut(): void {
  session.value = null;
  localStorage.removeItem(storageKey);
}

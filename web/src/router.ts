import { signal } from '@preact/signals';

/** The current path; pages are picked from it. History API, so links are real URLs. */
export const path = signal(location.pathname);

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return;
  history.pushState(null, '', to);
  path.value = location.pathname;
  window.scrollTo(0, 0);
}

addEventListener('popstate', () => {
  path.value = location.pathname;
});

/**
 * Where to go after signing in: the `next` of the current URL when it is a path of this site
 * ("/shows/x?y"), never another origin ("//evil.example", "https://...", "/\\evil") or a scheme.
 */
export function nextPath(search: string = location.search): string | null {
  const next = new URLSearchParams(search).get('next');
  if (next === null || next.length > 512 || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return null;
  try {
    const url = new URL(next, location.origin);
    return url.origin === location.origin ? url.pathname + url.search + url.hash : null;
  } catch {
    return null;
  }
}

/** The sign-in page's address that comes back to `back` (default: here) afterwards. */
export const signInHref = (back: string = location.pathname + location.search, page: '/signin' | '/signup' = '/signin'): string =>
  `${page}?${new URLSearchParams({ next: back }).toString()}`;

/** Same-origin link clicks stay in the app. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest('a');
  if (anchor === null || anchor === undefined || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const href = anchor.getAttribute('href');
  if (href === null || !href.startsWith('/') || anchor.target !== '') return;
  event.preventDefault();
  navigate(href);
}

/** Matches "/shows/:id" style patterns; returns the parameters or null. */
export function match(pattern: string, current: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = current.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
}

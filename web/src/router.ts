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

/**
 * Which methods each registered path answers, so a known path asked with another method gets 405
 * with `Allow` instead of 404. Filled from Fastify's onRoute hook; paths are matched the way the
 * router matches them (`:param` is one segment, `*` the rest).
 */
export class AllowedMethods {
  private readonly routes: { readonly pattern: RegExp; readonly methods: Set<string> }[] = [];
  private readonly byUrl = new Map<string, Set<string>>();

  add(url: string, method: string | readonly string[]): void {
    let methods = this.byUrl.get(url);
    if (methods === undefined) {
      methods = new Set();
      this.byUrl.set(url, methods);
      this.routes.push({ pattern: toPattern(url), methods });
    }
    for (const m of typeof method === 'string' ? [method] : method) methods.add(m.toUpperCase());
  }

  /** The methods a concrete path answers, sorted; empty when no route has the path. */
  forPath(path: string): string[] {
    const found = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const m of route.methods) found.add(m);
    return [...found].sort();
  }
}

function toPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

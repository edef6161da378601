/**
 * If-None-Match evaluation (RFC 9110 §13.1.2): `*` matches any current representation, otherwise
 * the field is a list of entity tags compared weakly (W/ is ignored on both sides).
 */
const entityTag = /(?:W\/)?"([^"]*)"/g;

/** The opaque part of an entity tag, without W/ and quotes; null when it is not a valid tag. */
function opaque(tag: string): string | null {
  const match = /^(?:W\/)?"([^"]*)"$/.exec(tag.trim());
  return match === null ? null : (match[1] ?? '');
}

export function ifNoneMatchMatches(field: string | undefined, currentEtag: string): boolean {
  if (field === undefined) return false;
  // The common case, a client sending back the one tag it was given: no parsing.
  if (field === currentEtag) return true;
  if (field.trim() === '*') return true;
  const current = opaque(currentEtag);
  if (current === null) return false;
  for (const [, tag] of field.matchAll(entityTag)) if (tag === current) return true;
  return false;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';

/**
 * Request bodies are strictly typed (issue 33): `"quantity":"2"` is refused, not read as 2. The
 * validator (one Ajv for every part of a request) coerces types so that querystrings and params,
 * which arrive as text, are read as the numbers their schemas say; for a JSON body that coercion
 * would accept what a client never meant. This hook runs before validation and refuses a body
 * value whose JSON type its schema does not admit; the validator then checks everything else.
 */

type Schema = Readonly<Record<string, unknown>>;

const jsonType = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const admitsType = (declared: unknown, actual: string): boolean => {
  const types = Array.isArray(declared) ? declared : [declared];
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
};

/** Whether an object value has the names an object branch requires, and none it closes out. */
function fitsShape(branch: unknown, value: unknown): boolean {
  if (branch === null || typeof branch !== 'object') return true;
  const b = branch as Schema;
  if (b.type !== 'object' || jsonType(value) !== 'object') return true;
  const names = Object.keys(value as object);
  const required = Array.isArray(b.required) ? (b.required as string[]) : [];
  if (!required.every((r) => names.includes(r))) return false;
  const properties = typeof b.properties === 'object' && b.properties !== null ? (b.properties as Schema) : {};
  return b.additionalProperties !== false || names.every((n) => Object.hasOwn(properties, n));
}

/** The first place in `value` whose JSON type `schema` does not admit ('' for the root), or null. */
export function typeMismatch(schema: unknown, value: unknown, path = ''): string | null {
  if (schema === null || typeof schema !== 'object') return null;
  const s = schema as Schema;
  // A union: the branches the value's shape fits (its required names present, no name a closed
  // object lacks); it is refused only when every such branch refuses a type. No branch fits: the
  // validator says why.
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    const fitting = branches.filter((b) => fitsShape(b, value));
    if (fitting.length === 0) return null;
    const misses = fitting.map((b) => typeMismatch(b, value, path));
    return misses.includes(null) ? null : (misses[0] ?? path);
  }
  if (Array.isArray(s.allOf)) {
    for (const part of s.allOf) {
      const miss = typeMismatch(part, value, path);
      if (miss !== null) return miss;
    }
  }
  // `nullable` (OpenAPI's, which Ajv reads too) admits null besides the type.
  if (s.type !== undefined && !admitsType(s.type, jsonType(value)) && !(s.nullable === true && value === null)) return path;
  if (jsonType(value) === 'object' && typeof s.properties === 'object' && s.properties !== null) {
    const properties = s.properties as Schema;
    for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
      if (!Object.hasOwn(properties, name)) continue;
      const miss = typeMismatch(properties[name], child, `${path}/${name}`);
      if (miss !== null) return miss;
    }
  }
  if (Array.isArray(value) && typeof s.items === 'object' && s.items !== null) {
    for (let i = 0; i < value.length; i++) {
      const miss = typeMismatch(s.items, value[i], `${path}/${i}`);
      if (miss !== null) return miss;
    }
  }
  return null;
}

/** Installs the check on every route with a body schema (before validation, so before any coercion). */
export function installStrictBodies(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const schema = request.routeOptions.schema?.body;
    if (schema === undefined || request.body === undefined) return;
    const miss = typeMismatch(schema, request.body);
    if (miss !== null) throw new HttpError('VALIDATION_FAILED', `body${miss === '' ? '' : miss} has the wrong type (no conversion: send ${miss === '' ? 'the body' : 'the value'} as its schema types it)`);
  });
}

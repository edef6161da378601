import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify)
 * for each app it builds: about 130 ms of CPU for our routes. A server builds one app, but a process
 * that composes several (the test suites build hundreds, the drills a few) paid it every time. These
 * builders are Fastify's own, shared by the process, with each compiled function kept by the schema's
 * content and the shared schemas it may refer to, so an app compiles only schemas no earlier app
 * compiled. The functions are pure (input in, verdict or text out), so sharing them is safe.
 * Bounded: a process holds at most `maxEntries` functions per set of shared schemas, oldest out.
 */
const maxEntries = 4_096;
const maxSets = 16;

type Compile<In, Out> = (input: In) => Out;

/** A cache by content within one set of shared schemas; the sets themselves bounded too. */
class ContentCache<Out> {
  private readonly sets = new Map<string, Map<string, Out>>();

  get(setKey: string, key: string, make: () => Out): Out {
    let entries = this.sets.get(setKey);
    if (entries === undefined) {
      if (this.sets.size >= maxSets) this.sets.delete(this.sets.keys().next().value as string);
      entries = new Map();
      this.sets.set(setKey, entries);
    }
    const found = entries.get(key);
    if (found !== undefined) return found;
    const made = make();
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(key, made);
    return made;
  }
}

interface RouteSchema {
  readonly schema: unknown;
  readonly httpPart?: string;
  readonly httpStatus?: string;
  readonly contentType?: string;
}

const validators = new ContentCache<unknown>();
const serializers = new ContentCache<unknown>();
const ajvPool = AjvCompiler();
const serializerSelector = SerializerSelector();

/** Header names are matched in lower case; Fastify lowers a schema's names only for its own builder. */
function assertLowerCaseHeaders(schema: unknown): void {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties;
  if (properties === undefined) return;
  const upper = Object.keys(properties).find((name) => name !== name.toLowerCase());
  if (upper !== undefined) throw new Error(`header schemas name headers in lower case (found ${upper})`);
}

type AjvOptions = Parameters<typeof ajvPool>[1];
type SerializerOptions = Parameters<typeof serializerSelector>[1];

function buildValidator(externalSchemas: unknown, options: AjvOptions): Compile<RouteSchema, unknown> {
  const setKey = JSON.stringify([externalSchemas, options]);
  const compile = ajvPool(externalSchemas as Parameters<typeof ajvPool>[0], options) as unknown as Compile<RouteSchema, unknown>;
  return (route) => {
    if (route.httpPart === 'headers') assertLowerCaseHeaders(route.schema);
    return validators.get(setKey, `${route.httpPart ?? ''}\n${JSON.stringify(route.schema)}`, () => compile(route));
  };
}

function buildSerializer(externalSchemas: unknown, options: SerializerOptions): Compile<RouteSchema, unknown> {
  const setKey = JSON.stringify([externalSchemas, options ?? null]);
  const compile = serializerSelector(externalSchemas, options) as unknown as Compile<RouteSchema, unknown>;
  return (route) => serializers.get(setKey, JSON.stringify(route.schema), () => compile(route));
}

/** Fastify's `schemaController` option with the shared builders. */
export const sharedSchemaCompilers = { compilersFactory: { buildValidator, buildSerializer } } as unknown as NonNullable<FastifyServerOptions['schemaController']>;

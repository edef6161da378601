import { Transform, pipeline, type Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { codesCsvParser, codesOfCsv } from '../../app/code-csv.js';
import { codePoolDetail, createCodePool, grabCode, importCodes, ImportInterrupted, myCodes } from '../../app/code-pools.js';
import { admissionTokenOf } from '../admission.js';
import type { HttpDeps } from '../deps.js';
import { buyerGate } from '../buyer-gate.js';
import { guard, requireRole, requireUser, roleGuard } from '../auth.js';
import { CodePoolDetail, GrabbedCode, ImportCodesJson, ImportCounts, MyCodes, NewCodePoolBody, PoolParams } from '../code-pool-schemas.js';
import { HttpError } from '../http-error.js';
import { PageQuery, errorResponses } from '../schemas.js';

/** Default of TICKETRUSH_IMPORT_BYTES_MAX: a CSV upload's own limit, apart from the JSON body limit. */
export const importBytesMaxDefault = 50 * 1024 * 1024;

class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the upload is larger than ${limit} bytes`);
  }
}

/** Passes bytes through until `limit`, then fails the stream (the rest is never read). */
function byteLimit(limit: number, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counted.bytes += chunk.length;
      if (counted.bytes > limit) done(new TooLarge(limit));
      else done(null, chunk);
    },
  });
}

export const codePoolRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;
  const importBytesMax = deps.importBytesMax ?? importBytesMaxDefault;

  // A CSV body reaches its handler as the raw stream: parsed record by record as it arrives,
  // never buffered whole (this plugin's routes only).
  app.addContentTypeParser(['text/csv'], (_request, payload, done) => done(null, payload));

  app.post('/admin/code-pools', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'code pools'],
      summary: 'Create a code pool (券码): a campaign that hands out pre-loaded codes, one per buyer',
      security: [{ bearer: [] }],
      body: NewCodePoolBody,
      response: { 201: Type.Object({ poolId: Type.String() }), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (request, reply) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const body = request.body;
    const created = await createCodePool(ctx, {
      title: body.title, description: body.description ?? '', imageUrl: body.imageUrl ?? null,
      saleStartsAt: Date.parse(body.saleStartsAt), saleEndsAt: Date.parse(body.saleEndsAt),
    }, actor);
    return reply.status(201).send(created);
  });

  app.post('/admin/code-pools/:poolId/codes', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'code pools'],
      summary: 'Import codes into a pool: a CSV upload (one code a line, or a `code` column) or JSON {"codes":[…]}',
      description: [
        'Idempotent: codes already in the pool, or repeated in the upload, count as duplicates and are not stored again.',
        'Codes are trimmed; blank lines are skipped; a code over 128 characters or with a control character is rejected and counted.',
        'A CSV upload is read as it arrives and committed in batches of 1,000; its own size limit is TICKETRUSH_IMPORT_BYTES_MAX',
        '(default 50 MB). Past it the answer is 413 PAYLOAD_TOO_LARGE, and details give the counts of the batches committed before.',
        'JSON bodies have the usual 64 KB limit.',
      ].join(' '),
      security: [{ bearer: [] }],
      params: PoolParams,
      body: {
        content: {
          'application/json': { schema: ImportCodesJson },
          'text/csv': { schema: Type.Unknown({ description: 'UTF-8 CSV: one code a line, or a header row with a `code` column' }) },
        },
      },
      response: { 200: ImportCounts, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    const { poolId } = request.params;
    if (request.headers['content-type']?.startsWith('text/csv') !== true) {
      return importCodes(ctx, poolId, (request.body as { codes: string[] }).codes);
    }
    const counted = { bytes: 0 };
    const source = request.body as Readable;
    const limiter = byteLimit(importBytesMax, counted);
    // pipe, not pipeline, from the request: a failure past the limit must not destroy the request
    // (that would reset the socket before the 413 goes out); the rest is left unread instead.
    source.pipe(limiter);
    limiter.once('error', () => {
      source.unpipe(limiter);
      source.pause();
    });
    const records = pipeline(
      limiter,
      codesCsvParser(),
      () => {},
    );
    try {
      return await importCodes(ctx, poolId, codesOfCsv(records));
    } catch (error) {
      if (!(error instanceof ImportInterrupted)) throw error;
      records.destroy();
      const details = { ...error.counts, bytesRead: counted.bytes };
      if (error.reason instanceof TooLarge) {
        // The rest of the body is never read: the connection closes rather than drain it.
        void reply.header('connection', 'close');
        throw new HttpError('PAYLOAD_TOO_LARGE', `${error.reason.message}; the batches before it were imported`, details);
      }
      // The parser's message names the line; `line` gives it as a number, for a client's own words.
      const line = (error.reason as { lines?: unknown }).lines;
      throw new HttpError('BAD_REQUEST', `the CSV could not be read: ${(error.reason as Error).message}`, typeof line === 'number' ? { ...details, line } : details);
    }
  });

  app.post('/code-pools/:poolId/grab', {
    onRequest: [guard(tokens), buyerGate(deps, 'grab')],
    schema: {
      tags: ['code pools'],
      summary: 'Grab a code: 201 with a new one, 200 with the one the caller already has (one per buyer)',
      security: [{ bearer: [] }],
      params: PoolParams,
      response: { 200: GrabbedCode, 201: GrabbedCode, ...errorResponses(401, 403, 404, 409, 422, 429) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const { fresh, grabbed } = await grabCode(ctx, request.params.poolId, me.userId, admissionTokenOf(request));
    return reply.status(fresh ? 201 : 200).send(grabbed);
  });

  app.get('/code-pools/:poolId', {
    schema: {
      tags: ['code pools'],
      summary: 'A code pool: its window, the codes left and, with a token, whether the caller has one',
      security: [{}, { bearer: [] }],
      params: PoolParams,
      response: { 200: CodePoolDetail, ...errorResponses(404) },
    },
  }, async (request) => {
    const me = tokens.principal(request.headers.authorization);
    return codePoolDetail(ctx, request.params.poolId, me?.userId ?? null);
  });

  app.get('/me/codes', {
    onRequest: guard(tokens),
    schema: {
      tags: ['code pools'],
      summary: 'My codes, newest first, with each pool\'s title',
      security: [{ bearer: [] }],
      querystring: PageQuery,
      response: { 200: MyCodes, ...errorResponses(401) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return { codes: await myCodes(ctx, me.userId, request.query) };
  });
};

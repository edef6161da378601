import type { Database as Db } from 'better-sqlite3';
import type { BeginKeyOutcome, CompleteKeyInput, IdempotencyRecord, IdempotencyStore, KeyClaim } from '../../ports/engine/index.js';
import type { GroupCommit } from './group-commit.js';
import * as records from './records.js';

export function sqliteIdempotency(db: Db, gc: GroupCommit): IdempotencyStore {
  const q = {
    get: db.prepare('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?'),
    // The primary key (scope, key) refuses a second writer; DO NOTHING makes that a row count.
    begin: db.prepare(`INSERT INTO idempotency_keys (scope, key, request_hash, state, outcome, response_body, created_at)
      VALUES (?, ?, ?, 'IN_FLIGHT', NULL, NULL, ?) ON CONFLICT DO NOTHING`),
    complete: db.prepare(`UPDATE idempotency_keys SET state = 'DONE', outcome = ?, response_body = ?
      WHERE scope = ? AND key = ? AND created_at = ? AND state = 'IN_FLIGHT'`),
    remove: db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at = ?'),
  };
  const get = (scope: string, key: string): IdempotencyRecord | null => {
    const row = q.get.get(scope, key) as records.IdempotencyRow | undefined;
    return row === undefined ? null : records.toIdempotency(row);
  };
  return {
    getKey: async (scope, key) => get(scope, key),
    beginKey: (record: IdempotencyRecord) =>
      gc.write('beginKey', (): BeginKeyOutcome => {
        if (q.begin.run(record.scope, record.key, record.requestHash, record.createdAt).changes === 1) return { ok: true };
        return { ok: false, code: 'KEY_EXISTS', record: get(record.scope, record.key) as IdempotencyRecord };
      }),
    completeKey: (input: CompleteKeyInput) =>
      gc.write('completeKey', () => q.complete.run(input.outcome, input.responseBody, input.scope, input.key, input.createdAt).changes === 1),
    removeKey: (claim: KeyClaim) => gc.write('removeKey', () => q.remove.run(claim.scope, claim.key, claim.createdAt).changes === 1),
  };
}

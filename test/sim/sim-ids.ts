import type { IdKind, IdSource } from '../../src/ports/runtime.js';

const codeAlphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/**
 * Sequential ids for the seeded simulation: the production ids are random, and the simulation
 * picks "a ticket of this order" from lists sorted by id, so a replay must see the very same ids.
 * One source lives across the run's restarts (the counter goes on), as random ids never repeat.
 */
export function sequentialIds(): IdSource {
  let n = 0;
  const next = (): number => ++n;
  return {
    newId: (kind: IdKind) => `${kind.slice(0, 3)}_sim${String(next()).padStart(7, '0')}`,
    // Twelve characters of the door's alphabet, like the real codes: the counter in base 31.
    newTicketCode: () => {
      let rest = next();
      let code = '';
      for (let i = 0; i < 12; i++) {
        code = (codeAlphabet[rest % codeAlphabet.length] as string) + code;
        rest = Math.floor(rest / codeAlphabet.length);
      }
      return code;
    },
  };
}

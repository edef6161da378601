import { fail, ok, type Result } from './result.js';

/**
 * A finite state machine given as a table `from -> event -> to`. Every state change of a seat,
 * hold, order, payment or ticket goes through one of these, so an illegal move is a typed
 * ILLEGAL_TRANSITION result instead of a silent overwrite.
 */
export interface StateMachine<S extends string, E extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly events: readonly E[];
  transition(from: S, event: E): Result<S>;
  can(from: S, event: E): boolean;
}

export type TransitionTable<S extends string, E extends string> = Readonly<Record<S, Readonly<Partial<Record<E, S>>>>>;

export function defineMachine<S extends string, E extends string>(
  name: string,
  states: readonly S[],
  events: readonly E[],
  table: TransitionTable<S, E>,
): StateMachine<S, E> {
  const target = (from: S, event: E): S | undefined => table[from][event];
  return Object.freeze({
    name,
    states,
    events,
    can: (from: S, event: E) => target(from, event) !== undefined,
    transition(from: S, event: E): Result<S> {
      const to = target(from, event);
      if (to === undefined) {
        return fail('ILLEGAL_TRANSITION', `${name}: ${event} is not allowed from ${from}`, { machine: name, from, event });
      }
      return ok(to);
    },
  });
}

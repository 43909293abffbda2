/** given(events).when(command).then(events | error): a decider test reads as its rule. */
import type { Decider, DomainEvent } from '../../domain/shared/decider';
import { DomainError, type DomainErrorKind } from '../../domain/shared/errors';

export function specFor<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given: (events: E[]) => ({
      when: (command: C) => {
        const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
        return {
          then: (expected: E[]) => expect(run()).toEqual(expected),
          thenFails: (kind: DomainErrorKind, message: string | RegExp, details?: Record<string, unknown>) => {
            let caught: unknown;
            try {
              run();
            } catch (error) {
              caught = error;
            }
            expect(caught).toBeInstanceOf(DomainError);
            const error = caught as DomainError;
            expect(error.kind).toBe(kind);
            if (typeof message === 'string') expect(error.message).toBe(message);
            else expect(error.message).toMatch(message);
            if (details) expect(error.details).toEqual(details);
          },
        };
      },
    }),
  };
}

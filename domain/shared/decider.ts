/** A decider: the pure rules of one aggregate. Time and ids arrive inside commands. */
export type DomainEvent<Type extends string = string, Data = unknown> = { type: Type; data: Data };

export type Decider<Command, Event extends DomainEvent, State> = {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Events the command causes; throws a DomainError when a rule refuses it. */
  decide: (command: Command, state: State) => Event[];
  /**
   * For a stream that grows without end (an organization's speech admissions): its state, plain JSON
   * data, is kept as a snapshot every `every` events, so folding it never reads more than that many.
   * `version` names the state's shape: change it with the shape, and older snapshots are passed over.
   */
  snapshot?: { every: number; version: number };
};

export const assertNever = (value: never): never => {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
};

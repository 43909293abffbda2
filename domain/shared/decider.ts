/** A decider: the pure rules of one aggregate. Time and ids arrive inside commands. */
export type DomainEvent<Type extends string = string, Data = unknown> = { type: Type; data: Data };

export type Decider<Command, Event extends DomainEvent, State> = {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Events the command causes; throws a DomainError when a rule refuses it. */
  decide: (command: Command, state: State) => Event[];
};

export const assertNever = (value: never): never => {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
};

/**
 * The disposition catalog of one organization: its dispositions and disposition groups. They form one
 * aggregate because their rules span both (unique names, and "a disposition in any group cannot be
 * deleted"): deciding them on one stream with optimistic concurrency keeps the rules true under
 * concurrent requests.
 */
import { assertNever, type Decider } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/errors';
import { PersistentMap } from '../shared/persistent-map';

export const catalogStreamId = (organizationId: string) => `dispositionCatalog-${organizationId}`;

export type Disposition = { name: string; description: string; priority: number };
export type Group = { name: string; description: string; dispositionIds: string[] };
/**
 * Never changed in place. Dispositions and names are persistent maps: an event changes one entry, and
 * `evolve` copies only a small part of each (an organization may have hundreds of dispositions, folded
 * on every disposition command). Groups are few, and a plain map keeps them in the order they were
 * created, the order refusals name them in.
 */
export type CatalogState = {
  dispositions: PersistentMap<Disposition>;
  groups: ReadonlyMap<string, Group>;
  /** Normalized name to id, for the uniqueness rules. */
  dispositionNames: PersistentMap<string>;
  groupNames: PersistentMap<string>;
};

export type CatalogCommand =
  | {
      type: 'CreateDisposition';
      dispositionId: string;
      name: string;
      description: string;
      priority: number;
      at: string;
    }
  | { type: 'UpdateDisposition'; dispositionId: string; changes: Partial<Disposition>; at: string }
  | { type: 'DeleteDisposition'; dispositionId: string; at: string }
  | {
      type: 'CreateDispositionGroup';
      groupId: string;
      name: string;
      description: string;
      dispositionIds: string[];
      at: string;
    }
  | {
      type: 'UpdateDispositionGroup';
      groupId: string;
      changes: { name?: string; description?: string; dispositionIds?: string[] };
      at: string;
    }
  | { type: 'DeleteDispositionGroup'; groupId: string; at: string }
  | { type: 'AddDispositionsToGroup'; groupId: string; dispositionIds: string[]; at: string }
  | { type: 'RemoveDispositionsFromGroup'; groupId: string; dispositionIds: string[]; at: string };

export type CatalogEvent =
  | {
      type: 'DispositionCreated';
      data: { dispositionId: string; name: string; description: string; priority: number; at: string };
    }
  | { type: 'DispositionUpdated'; data: { dispositionId: string; changes: Partial<Disposition>; at: string } }
  | { type: 'DispositionDeleted'; data: { dispositionId: string; at: string } }
  | {
      type: 'DispositionGroupCreated';
      data: { groupId: string; name: string; description: string; dispositionIds: string[]; at: string };
    }
  | {
      type: 'DispositionGroupUpdated';
      data: {
        groupId: string;
        changes: { name?: string; description?: string; dispositionIds?: string[] };
        at: string;
      };
    }
  | { type: 'DispositionGroupDeleted'; data: { groupId: string; at: string } }
  | { type: 'DispositionsAddedToGroup'; data: { groupId: string; dispositionIds: string[]; at: string } }
  | { type: 'DispositionsRemovedFromGroup'; data: { groupId: string; dispositionIds: string[]; at: string } };

export const catalogEventTypes = [
  'DispositionCreated',
  'DispositionUpdated',
  'DispositionDeleted',
  'DispositionGroupCreated',
  'DispositionGroupUpdated',
  'DispositionGroupDeleted',
  'DispositionsAddedToGroup',
  'DispositionsRemovedFromGroup',
] as const satisfies readonly CatalogEvent['type'][];

export const DISPOSITION_NOT_FOUND = 'Disposition not found';
export const GROUP_NOT_FOUND = 'Disposition group not found';
export const DUPLICATE_DISPOSITION = 'A disposition with this name already exists';
export const DUPLICATE_GROUP = 'A group with this name already exists';

/** Names are unique ignoring case and surrounding spaces. */
const nameKey = (name: string) => name.trim().toLowerCase();
const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * The fields a change may carry, and only those: whatever else a command or a stored event holds never
 * reaches the state (an event recorded before requests were checked strictly may hold more).
 */
export function dispositionChanges({ name, description, priority }: Partial<Disposition>): Partial<Disposition> {
  return {
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
    ...(priority !== undefined && { priority }),
  };
}

export function groupChanges({ name, description, dispositionIds }: Partial<Group>): Partial<Group> {
  return {
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
    ...(dispositionIds !== undefined && { dispositionIds }),
  };
}

function disposition(state: CatalogState, id: string): Disposition {
  const found = state.dispositions.get(id);
  if (!found) throw notFound(DISPOSITION_NOT_FOUND);
  return found;
}

function group(state: CatalogState, id: string): Group {
  const found = state.groups.get(id);
  if (!found) throw notFound(GROUP_NOT_FOUND);
  return found;
}

function assertKnown(state: CatalogState, ids: readonly string[]): void {
  const invalidIds = unique(ids).filter((id) => !state.dispositions.has(id));
  if (invalidIds.length > 0) throw invalid('Some disposition ids are invalid', { invalidIds });
}

function assertDispositionNameFree(state: CatalogState, name: string, except?: string): void {
  const holder = state.dispositionNames.get(nameKey(name));
  if (holder !== undefined && holder !== except) throw conflict(DUPLICATE_DISPOSITION);
}

function assertGroupNameFree(state: CatalogState, name: string, except?: string): void {
  const holder = state.groupNames.get(nameKey(name));
  if (holder !== undefined && holder !== except) throw conflict(DUPLICATE_GROUP);
}

function renamed(
  names: PersistentMap<string>,
  id: string,
  from: string | undefined,
  to: string | undefined,
): PersistentMap<string> {
  let next = names;
  if (from !== undefined && next.get(nameKey(from)) === id) next = next.delete(nameKey(from));
  if (to !== undefined) next = next.set(nameKey(to), id);
  return next;
}

/** `map` with `key` set to `value`, or removed when `value` is undefined. */
const changed = <V>(map: PersistentMap<V>, key: string, value: V | undefined): PersistentMap<V> =>
  value === undefined ? map.delete(key) : map.set(key, value);

/** A copy of the groups with `groupId` set to `group`, or removed when `group` is undefined. */
function changedGroups(
  groups: ReadonlyMap<string, Group>,
  groupId: string,
  group: Group | undefined,
): ReadonlyMap<string, Group> {
  const next = new Map(groups);
  if (group === undefined) next.delete(groupId);
  else next.set(groupId, group);
  return next;
}

export function groupsContaining(state: CatalogState, dispositionId: string): [string, Group][] {
  return [...state.groups].filter(([, g]) => g.dispositionIds.includes(dispositionId));
}

export function decide(command: CatalogCommand, state: CatalogState): CatalogEvent[] {
  const { at } = command;
  switch (command.type) {
    case 'CreateDisposition': {
      assertDispositionNameFree(state, command.name);
      const { dispositionId, name, description, priority } = command;
      return [{ type: 'DispositionCreated', data: { dispositionId, name, description, priority, at } }];
    }
    case 'UpdateDisposition': {
      disposition(state, command.dispositionId);
      if (command.changes.name !== undefined)
        assertDispositionNameFree(state, command.changes.name, command.dispositionId);
      return [
        {
          type: 'DispositionUpdated',
          data: { dispositionId: command.dispositionId, changes: dispositionChanges(command.changes), at },
        },
      ];
    }
    case 'DeleteDisposition': {
      disposition(state, command.dispositionId);
      const groups = groupsContaining(state, command.dispositionId);
      if (groups.length > 0)
        throw invalid(`Cannot delete: Disposition is used in group(s): ${groups.map(([, g]) => g.name).join(', ')}`);
      return [{ type: 'DispositionDeleted', data: { dispositionId: command.dispositionId, at } }];
    }
    case 'CreateDispositionGroup': {
      assertGroupNameFree(state, command.name);
      assertKnown(state, command.dispositionIds);
      const { groupId, name, description } = command;
      return [
        {
          type: 'DispositionGroupCreated',
          data: { groupId, name, description, dispositionIds: unique(command.dispositionIds), at },
        },
      ];
    }
    case 'UpdateDispositionGroup': {
      group(state, command.groupId);
      const { name, description, dispositionIds } = command.changes;
      if (name !== undefined) assertGroupNameFree(state, name, command.groupId);
      if (dispositionIds !== undefined) assertKnown(state, dispositionIds);
      return [
        {
          type: 'DispositionGroupUpdated',
          data: {
            groupId: command.groupId,
            changes: groupChanges({ name, description, dispositionIds: dispositionIds && unique(dispositionIds) }),
            at,
          },
        },
      ];
    }
    case 'DeleteDispositionGroup': {
      group(state, command.groupId);
      return [{ type: 'DispositionGroupDeleted', data: { groupId: command.groupId, at } }];
    }
    case 'AddDispositionsToGroup': {
      const target = group(state, command.groupId);
      assertKnown(state, command.dispositionIds);
      const added = unique(command.dispositionIds).filter((id) => !target.dispositionIds.includes(id));
      return added.length === 0
        ? []
        : [{ type: 'DispositionsAddedToGroup', data: { groupId: command.groupId, dispositionIds: added, at } }];
    }
    case 'RemoveDispositionsFromGroup': {
      const target = group(state, command.groupId);
      assertKnown(state, command.dispositionIds);
      const removed = unique(command.dispositionIds).filter((id) => target.dispositionIds.includes(id));
      return removed.length === 0
        ? []
        : [{ type: 'DispositionsRemovedFromGroup', data: { groupId: command.groupId, dispositionIds: removed, at } }];
    }
    default:
      return assertNever(command);
  }
}

export function evolve(state: CatalogState, event: CatalogEvent): CatalogState {
  switch (event.type) {
    case 'DispositionCreated': {
      const { dispositionId, name, description, priority } = event.data;
      return {
        ...state,
        dispositions: changed(state.dispositions, dispositionId, { name, description, priority }),
        dispositionNames: renamed(state.dispositionNames, dispositionId, undefined, name),
      };
    }
    case 'DispositionUpdated': {
      const { dispositionId, changes } = event.data;
      const current = state.dispositions.get(dispositionId);
      if (!current) return state;
      const dispositionNames =
        changes.name === undefined
          ? state.dispositionNames
          : renamed(state.dispositionNames, dispositionId, current.name, changes.name);
      return {
        ...state,
        dispositions: changed(state.dispositions, dispositionId, { ...current, ...dispositionChanges(changes) }),
        dispositionNames,
      };
    }
    case 'DispositionDeleted': {
      const gone = state.dispositions.get(event.data.dispositionId);
      return {
        ...state,
        dispositions: changed(state.dispositions, event.data.dispositionId, undefined),
        dispositionNames: renamed(state.dispositionNames, event.data.dispositionId, gone?.name, undefined),
      };
    }
    case 'DispositionGroupCreated': {
      const { groupId, name, description, dispositionIds } = event.data;
      return {
        ...state,
        groups: changedGroups(state.groups, groupId, { name, description, dispositionIds }),
        groupNames: renamed(state.groupNames, groupId, undefined, name),
      };
    }
    case 'DispositionGroupUpdated': {
      const { groupId, changes } = event.data;
      const current = state.groups.get(groupId);
      if (!current) return state;
      const groupNames =
        changes.name === undefined ? state.groupNames : renamed(state.groupNames, groupId, current.name, changes.name);
      return { ...withGroup(state, groupId, (g) => ({ ...g, ...groupChanges(changes) })), groupNames };
    }
    case 'DispositionGroupDeleted': {
      const gone = state.groups.get(event.data.groupId);
      return {
        ...state,
        groups: changedGroups(state.groups, event.data.groupId, undefined),
        groupNames: renamed(state.groupNames, event.data.groupId, gone?.name, undefined),
      };
    }
    case 'DispositionsAddedToGroup':
      return withGroup(state, event.data.groupId, (g) => ({
        ...g,
        dispositionIds: [...g.dispositionIds, ...event.data.dispositionIds],
      }));
    case 'DispositionsRemovedFromGroup':
      return withGroup(state, event.data.groupId, (g) => ({
        ...g,
        dispositionIds: g.dispositionIds.filter((id) => !event.data.dispositionIds.includes(id)),
      }));
    default:
      return assertNever(event);
  }
}

function withGroup(state: CatalogState, groupId: string, change: (g: Group) => Group): CatalogState {
  const current = state.groups.get(groupId);
  return current ? { ...state, groups: changedGroups(state.groups, groupId, change(current)) } : state;
}

export const catalogDecider: Decider<CatalogCommand, CatalogEvent, CatalogState> = {
  initialState: () => ({
    dispositions: PersistentMap.empty(),
    groups: new Map(),
    dispositionNames: PersistentMap.empty(),
    groupNames: PersistentMap.empty(),
  }),
  evolve,
  decide,
};

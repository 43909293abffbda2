import { catalogDecider, type CatalogEvent } from '../../../domain/dispositions/catalog';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(catalogDecider);
const created = (dispositionId: string, name: string): CatalogEvent => ({
  type: 'DispositionCreated',
  data: { dispositionId, name, description: '', priority: 500, at },
});
const grouped = (groupId: string, name: string, dispositionIds: string[]): CatalogEvent => ({
  type: 'DispositionGroupCreated',
  data: { groupId, name, description: '', dispositionIds, at },
});

describe('disposition catalog', () => {
  describe('dispositions', () => {
    it('creates a disposition', () =>
      spec
        .given([])
        .when({
          type: 'CreateDisposition',
          dispositionId: 'd1',
          name: 'Paid',
          description: 'paid in full',
          priority: 10,
          at,
        })
        .then([
          {
            type: 'DispositionCreated',
            data: { dispositionId: 'd1', name: 'Paid', description: 'paid in full', priority: 10, at },
          },
        ]));

    it('refuses a name already used in the organization, ignoring case and spaces', () =>
      spec
        .given([created('d1', 'Paid')])
        .when({ type: 'CreateDisposition', dispositionId: 'd2', name: ' paid ', description: '', priority: 500, at })
        .thenFails('conflict', 'A disposition with this name already exists'));

    it('renames to a free name but not to another disposition name', () => {
      spec
        .given([created('d1', 'Paid'), created('d2', 'Busy')])
        .when({ type: 'UpdateDisposition', dispositionId: 'd2', changes: { name: 'PAID' }, at })
        .thenFails('conflict', 'A disposition with this name already exists');
      spec
        .given([created('d1', 'Paid')])
        .when({ type: 'UpdateDisposition', dispositionId: 'd1', changes: { name: 'paid' }, at })
        .then([{ type: 'DispositionUpdated', data: { dispositionId: 'd1', changes: { name: 'paid' }, at } }]);
    });

    it('answers not found for an unknown or deleted disposition', () => {
      spec
        .given([])
        .when({ type: 'UpdateDisposition', dispositionId: 'x', changes: { priority: 1 }, at })
        .thenFails('not_found', 'Disposition not found');
      spec
        .given([created('d1', 'Paid'), { type: 'DispositionDeleted', data: { dispositionId: 'd1', at } }])
        .when({ type: 'DeleteDisposition', dispositionId: 'd1', at })
        .thenFails('not_found', 'Disposition not found');
    });

    it('deletes a disposition that is in no group', () =>
      spec
        .given([
          created('d1', 'Paid'),
          grouped('g1', 'Main', []),
          { type: 'DispositionsAddedToGroup', data: { groupId: 'g1', dispositionIds: ['d1'], at } },
          { type: 'DispositionsRemovedFromGroup', data: { groupId: 'g1', dispositionIds: ['d1'], at } },
        ])
        .when({ type: 'DeleteDisposition', dispositionId: 'd1', at })
        .then([{ type: 'DispositionDeleted', data: { dispositionId: 'd1', at } }]));

    it('refuses to delete a disposition used in groups, naming them', () =>
      spec
        .given([created('d1', 'Paid'), grouped('g1', 'Collections', ['d1']), grouped('g2', 'Follow-up', ['d1'])])
        .when({ type: 'DeleteDisposition', dispositionId: 'd1', at })
        .thenFails('invalid', 'Cannot delete: Disposition is used in group(s): Collections, Follow-up'));

    it('frees a name once its disposition is deleted', () =>
      spec
        .given([created('d1', 'Paid'), { type: 'DispositionDeleted', data: { dispositionId: 'd1', at } }])
        .when({ type: 'CreateDisposition', dispositionId: 'd2', name: 'Paid', description: '', priority: 500, at })
        .then([
          {
            type: 'DispositionCreated',
            data: { dispositionId: 'd2', name: 'Paid', description: '', priority: 500, at },
          },
        ]));
  });

  describe('groups', () => {
    it('creates a group, dropping duplicate ids', () =>
      spec
        .given([created('d1', 'Paid'), created('d2', 'Busy')])
        .when({
          type: 'CreateDispositionGroup',
          groupId: 'g1',
          name: 'Main',
          description: '',
          dispositionIds: ['d1', 'd2', 'd1'],
          at,
        })
        .then([grouped('g1', 'Main', ['d1', 'd2'])]));

    it('refuses unknown ids with the list of invalid ids', () =>
      spec
        .given([created('d1', 'Paid')])
        .when({
          type: 'CreateDispositionGroup',
          groupId: 'g1',
          name: 'Main',
          description: '',
          dispositionIds: ['d1', 'x', 'y', 'x'],
          at,
        })
        .thenFails('invalid', 'Some disposition ids are invalid', { invalidIds: ['x', 'y'] }));

    it('refuses a duplicate group name', () =>
      spec
        .given([grouped('g1', 'Main', [])])
        .when({ type: 'CreateDispositionGroup', groupId: 'g2', name: 'main', description: '', dispositionIds: [], at })
        .thenFails('conflict', 'A group with this name already exists'));

    it('replaces the member list on update', () =>
      spec
        .given([created('d1', 'Paid'), created('d2', 'Busy'), grouped('g1', 'Main', ['d1'])])
        .when({ type: 'UpdateDispositionGroup', groupId: 'g1', changes: { dispositionIds: ['d2', 'd2'] }, at })
        .then([{ type: 'DispositionGroupUpdated', data: { groupId: 'g1', changes: { dispositionIds: ['d2'] }, at } }]));

    it('adds only dispositions not already in the group, and nothing when all are there', () => {
      spec
        .given([created('d1', 'Paid'), created('d2', 'Busy'), grouped('g1', 'Main', ['d1'])])
        .when({ type: 'AddDispositionsToGroup', groupId: 'g1', dispositionIds: ['d1', 'd2'], at })
        .then([{ type: 'DispositionsAddedToGroup', data: { groupId: 'g1', dispositionIds: ['d2'], at } }]);
      spec
        .given([created('d1', 'Paid'), grouped('g1', 'Main', ['d1'])])
        .when({ type: 'AddDispositionsToGroup', groupId: 'g1', dispositionIds: ['d1'], at })
        .then([]);
    });

    it('removes from one group only: the disposition stays in its other groups and is not deleted', () => {
      const history = [
        created('d1', 'Paid'),
        grouped('g1', 'A', ['d1']),
        grouped('g2', 'B', ['d1']),
        { type: 'DispositionsRemovedFromGroup', data: { groupId: 'g1', dispositionIds: ['d1'], at } } as CatalogEvent,
      ];
      spec
        .given(history)
        .when({ type: 'DeleteDisposition', dispositionId: 'd1', at })
        .thenFails('invalid', 'Cannot delete: Disposition is used in group(s): B');
      spec
        .given(history)
        .when({ type: 'AddDispositionsToGroup', groupId: 'g1', dispositionIds: ['d1'], at })
        .then([{ type: 'DispositionsAddedToGroup', data: { groupId: 'g1', dispositionIds: ['d1'], at } }]);
    });

    it('deleting a group keeps its dispositions, which can then be deleted', () => {
      const history = [
        created('d1', 'Paid'),
        grouped('g1', 'A', ['d1']),
        { type: 'DispositionGroupDeleted', data: { groupId: 'g1', at } } as CatalogEvent,
      ];
      spec
        .given(history)
        .when({ type: 'DeleteDisposition', dispositionId: 'd1', at })
        .then([{ type: 'DispositionDeleted', data: { dispositionId: 'd1', at } }]);
      spec
        .given(history)
        .when({ type: 'DeleteDispositionGroup', groupId: 'g1', at })
        .thenFails('not_found', 'Disposition group not found');
    });

    it('answers group not found for unknown groups', () => {
      spec
        .given([])
        .when({ type: 'AddDispositionsToGroup', groupId: 'g9', dispositionIds: ['d1'], at })
        .thenFails('not_found', 'Disposition group not found');
      spec
        .given([])
        .when({ type: 'RemoveDispositionsFromGroup', groupId: 'g9', dispositionIds: ['d1'], at })
        .thenFails('not_found', 'Disposition group not found');
    });

    it('refuses to add a deleted disposition to a group', () =>
      spec
        .given([
          created('d1', 'Paid'),
          { type: 'DispositionDeleted', data: { dispositionId: 'd1', at } },
          grouped('g1', 'A', []),
        ])
        .when({ type: 'AddDispositionsToGroup', groupId: 'g1', dispositionIds: ['d1'], at })
        .thenFails('invalid', 'Some disposition ids are invalid', { invalidIds: ['d1'] }));
  });
});

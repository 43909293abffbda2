import { organizationDecider, type OrganizationEvent } from '../../../domain/organizations/organization';
import { specFor } from '../../support/decider-spec';

const at = '2026-03-01T10:00:00.000Z';
const spec = specFor(organizationDecider);
const registered: OrganizationEvent = { type: 'OrganizationRegistered', data: { organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 100, concurrencyLimit: 5, at } };

describe('organization', () => {
  it('registers once', () => {
    spec.given([]).when({ type: 'RegisterOrganization', organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 100, concurrencyLimit: 5, at }).then([registered]);
    spec.given([registered]).when({ type: 'RegisterOrganization', organizationId: 'o1', name: 'Acme', organizationType: 'collection', credits: 100, concurrencyLimit: 5, at }).thenFails('conflict', 'Organization already exists');
  });

  it('adjusts credits with the resulting balance, never below zero', () => {
    spec.given([registered]).when({ type: 'AdjustCredits', amount: -40, at }).then([{ type: 'CreditsAdjusted', data: { amount: -40, balance: 60, at } }]);
    spec.given([registered]).when({ type: 'AdjustCredits', amount: -101, at }).thenFails('invalid', 'Credits cannot go below zero (balance 100)');
    spec.given([]).when({ type: 'AdjustCredits', amount: 1, at }).thenFails('not_found', 'Organization not found');
  });
});

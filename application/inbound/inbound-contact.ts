/**
 * What an inbound call and an inbound chat share before either is recorded (docs/inbound.md): the
 * number's own stream says who owns it and who answers it (never the read model, which may lag), the
 * agent it names must still exist, and the caller (or sender) is matched to a customer by phone number
 * across the organization's live campaigns, the latest added first; a stranger is taken without one.
 */
import type { CallTarget } from '../../domain/calls/call';
import { campaignDecider, campaignStreamId } from '../../domain/campaigns/campaign';
import { keyFieldOf } from '../../domain/customers/record';
import { phoneNumberDecider, phoneNumberStreamId } from '../../domain/numbers/owned-number';
import type { OrganizationType } from '../../domain/organizations/organization';
import { isLanguageCode } from '../../domain/shared/languages';
import type { CustomerDocument } from '../../projections/customers/customers';
import type { CommandHandler } from '../command-handler';
import { customerContact, type CustomerContact } from '../customers/customer-contact';

/** Why an inbound call or chat is refused without anything recorded. */
export type UnrecordedRefusal = 'number_not_owned' | 'no_inbound_agent' | 'agent_not_found';

/** A customer an inbound caller was matched to. */
export type CallerMatch = Omit<CustomerContact, 'phone'> & { language: string | null };

export type InboundLookups = {
  organizationType: (organizationId: string) => Promise<OrganizationType | null>;
  /** The agent that answers: only whether it exists and its language matter here. */
  agent: (organizationId: string, agentId: string) => Promise<{ language?: string } | null>;
  /** The organization's customers with this phone number, latest added first. */
  customersByPhone: (organizationId: string, phone: string) => Promise<CustomerDocument[]>;
};

/** Who an inbound contact is for, and what it starts from: its target without the channel's own fields. */
export type InboundRoute = {
  /**
   * A call's target but for the caller's number (the channel adds it): the organization's number it
   * came in to as `to`, and the customer's language when the record names one, else the agent's, else
   * English.
   */
  target: Omit<CallTarget, 'from'>;
};

export async function routeInbound(
  commands: CommandHandler,
  lookups: InboundLookups,
  offer: { to: string; from: string },
): Promise<InboundRoute | { refused: UnrecordedRefusal }> {
  const { state: number } = await commands.load(phoneNumberDecider, phoneNumberStreamId(offer.to));
  if (number.status !== 'owned') return { refused: 'number_not_owned' };
  if (!number.inbound) return { refused: 'no_inbound_agent' };
  const { organizationId } = number;
  const organizationType = await lookups.organizationType(organizationId);
  if (!organizationType) return { refused: 'number_not_owned' };
  const agent = await lookups.agent(organizationId, number.inbound.agentId);
  if (!agent) return { refused: 'agent_not_found' };
  const match = await matchCaller(commands, lookups, organizationId, offer.from);
  return {
    target: {
      organizationId,
      campaignId: match?.campaignId ?? '',
      campaignName: match?.campaignName ?? '',
      customerKeyField: match?.customerKeyField ?? keyFieldOf(organizationType),
      customerKey: match?.customerKey ?? '',
      customerName: match?.customerName ?? '',
      to: number.number,
      agentId: number.inbound.agentId,
      dispositionId: number.inbound.dispositionId,
      language: languageOf(match?.language ?? null, agent.language),
    },
  };
}

/** The customer an inbound caller (or chat sender) is, by phone number. */
export async function matchCaller(
  commands: CommandHandler,
  lookups: Pick<InboundLookups, 'customersByPhone' | 'organizationType'>,
  organizationId: string,
  phone: string,
): Promise<CallerMatch | null> {
  const type = await lookups.organizationType(organizationId);
  if (!type) return null;
  for (const customer of await lookups.customersByPhone(organizationId, phone)) {
    // A deleted campaign's customers are history, not callers to greet by name.
    const { state } = await commands.load(campaignDecider, campaignStreamId(customer.campaignId));
    if (state.status !== 'active' && state.status !== 'paused') continue;
    const contact = customerContact(
      { campaignId: customer.campaignId, campaignName: state.name, customerKeyField: keyFieldOf(type) },
      customer.customerId,
      customer.data,
    );
    return {
      campaignId: contact.campaignId,
      campaignName: contact.campaignName,
      customerKeyField: contact.customerKeyField,
      customerKey: contact.customerKey,
      customerName: contact.customerName,
      language: customer.language,
    };
  }
  return null;
}

function languageOf(customerLanguage: string | null, agentLanguage: string | undefined): string {
  if (customerLanguage && isLanguageCode(customerLanguage)) return customerLanguage;
  return agentLanguage && isLanguageCode(agentLanguage) ? agentLanguage : 'en';
}

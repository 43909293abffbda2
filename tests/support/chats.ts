import type { ChatTarget } from '../../domain/chats/chat';

/** What a chat is for, as the chat decider tests use it: a template message to Asha Rao of campaign c1. */
export const chatTarget = (overrides: Partial<ChatTarget> = {}): ChatTarget => ({
  organizationId: 'o1',
  campaignId: 'c1',
  campaignName: 'March EMI',
  customerKeyField: 'loan_id',
  customerKey: 'L-1',
  customerName: 'Asha Rao',
  to: '+919812345678',
  templateId: 'tpl-1',
  content: 'Namaste Asha, your EMI of 5,000 is due.',
  language: 'en',
  agentId: null,
  dispositionId: null,
  ...overrides,
});

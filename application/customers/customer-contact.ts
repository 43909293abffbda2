/**
 * Who a call or chat is for: a customer of a campaign, with the name and number its record gives.
 * The call placer and the chat sender build their candidates on it.
 */
export type CampaignScope = { campaignId: string; campaignName: string; customerKeyField: 'loan_id' | 'lead_id' };
export type CustomerContact = CampaignScope & { customerKey: string; customerName: string; phone: string };

export function customerContact(
  campaign: CampaignScope,
  customerKey: string,
  record: Record<string, unknown>,
): CustomerContact {
  return {
    ...campaign,
    customerKey,
    customerName: [record.first_name, record.last_name].filter(Boolean).join(' '),
    phone: String(record.phone_number),
  };
}

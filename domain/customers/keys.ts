/**
 * How a customer is found: by campaign and key (`loan_id` or `lead_id`, unique within a campaign only),
 * and by the language its record names. The customers read model files its documents under these, and
 * the use cases that look customers up or select them by language reckon them the same way.
 */
import { languageFromCustomer } from '../shared/languages';

/** Customer keys are unique within a campaign only, so the document id holds both. */
export const customerDocumentId = (campaignId: string, customerId: string) => `${campaignId}/${customerId}`;

/** The language code the word names (`Hindi` gives `hi`), the word itself when it names none, null when absent. */
export function languageKey(word: unknown): string | null {
  if (typeof word !== 'string' || word.trim() === '') return null;
  // Two fallbacks tell a recognized word from an unknown one.
  const code = languageFromCustomer(word, 'en');
  return code === languageFromCustomer(word, 'hi') ? code : word.trim().toLowerCase();
}

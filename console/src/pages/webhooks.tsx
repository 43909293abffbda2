/** Webhooks: to be built. */
import { Page } from '../components/ui';

export default function WebhooksPage() {
  return (
    <Page title="Webhooks">
      <p>This page is not built yet.</p>
    </Page>
  );
}

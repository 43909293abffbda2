/** Campaigns: to be built. */
import { Page } from '../components/ui';

export default function CampaignsPage() {
  return (
    <Page title="Campaigns">
      <p>This page is not built yet.</p>
    </Page>
  );
}

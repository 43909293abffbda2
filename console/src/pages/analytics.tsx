/** Analytics: to be built. */
import { Page } from '../components/ui';

export default function AnalyticsPage() {
  return (
    <Page title="Analytics">
      <p>This page is not built yet.</p>
    </Page>
  );
}

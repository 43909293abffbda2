/** Blacklist: to be built. */
import { Page } from '../components/ui';

export default function BlacklistPage() {
  return (
    <Page title="Blacklist">
      <p>This page is not built yet.</p>
    </Page>
  );
}

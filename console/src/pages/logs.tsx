/** Logs: to be built. */
import { Page } from '../components/ui';

export default function LogsPage() {
  return (
    <Page title="Logs">
      <p>This page is not built yet.</p>
    </Page>
  );
}

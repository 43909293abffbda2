/** Agents: to be built. */
import { Page } from '../components/ui';

export default function AgentsPage() {
  return (
    <Page title="Agents">
      <p>This page is not built yet.</p>
    </Page>
  );
}

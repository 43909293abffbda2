/** Workflows: to be built. */
import { Page } from '../components/ui';

export default function WorkflowsPage() {
  return (
    <Page title="Workflows">
      <p>This page is not built yet.</p>
    </Page>
  );
}

/** Audit trail: to be built. */
import { Page } from '../components/ui';

export default function AuditPage() {
  return (
    <Page title="Audit trail">
      <p>This page is not built yet.</p>
    </Page>
  );
}

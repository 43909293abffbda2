/** Dispositions: to be built. */
import { Page } from '../components/ui';

export default function DispositionsPage() {
  return (
    <Page title="Dispositions">
      <p>This page is not built yet.</p>
    </Page>
  );
}

/** Numbers: to be built. */
import { Page } from '../components/ui';

export default function NumbersPage() {
  return (
    <Page title="Numbers">
      <p>This page is not built yet.</p>
    </Page>
  );
}

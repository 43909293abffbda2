/** Speech: to be built. */
import { Page } from '../components/ui';

export default function SpeechPage() {
  return (
    <Page title="Speech">
      <p>This page is not built yet.</p>
    </Page>
  );
}

/** The frame of a page showing one thing of the API (a campaign, a call): the way back, and the wait for it. */
import type { ComponentChildren } from 'preact';
import { Link } from 'wouter-preact';
import { ErrorNote, Loading, Page } from './ui';
import type { Loaded } from './use-load';

/** The link back to the list the page was opened from. */
export function BackLink(props: { href: string; children: ComponentChildren }) {
  return (
    <p class="back">
      <Link href={props.href}>{props.children}</Link>
    </p>
  );
}

/** The page while its thing is not there: loading, or the API's error saying why. */
export function PendingPage(props: { title: string; back: ComponentChildren; loaded: Loaded<unknown>; what: string }) {
  return (
    <Page title={props.title}>
      {props.back}
      <ErrorNote error={props.loaded.error} />
      {props.loaded.loading && <Loading what={props.what} />}
    </Page>
  );
}

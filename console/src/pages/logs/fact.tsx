/** One labelled value of a call or chat, inside a `<dl>`. */
import type { ComponentChildren } from 'preact';

export function Fact(props: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

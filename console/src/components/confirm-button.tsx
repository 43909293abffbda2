/**
 * A button for what cannot be undone: the first press asks, in place, and only "Yes" does it. No
 * browser dialog, so the question sits beside the thing it is about and the keyboard stays there.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export function ConfirmButton(props: {
  label: string;
  /** The question, e.g. `Delete “Spring EMI”? Its history is kept, but it cannot be used again.` */
  question: string;
  confirmLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" disabled={props.busy} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span class="confirm-question">{props.question}</span>
      <button
        ref={yes}
        type="button"
        class="danger"
        disabled={props.busy}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel ?? `Yes, ${props.label.toLowerCase()}`}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

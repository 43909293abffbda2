/**
 * A button for what cannot be undone: it asks first, in a modal dialog (focus kept inside, Escape
 * cancels) which also shows the API's refusal, for example a disposition still in a group.
 */
import { useRef } from 'preact/hooks';
import { ErrorNote } from './ui';
import { useAction } from './use-load';

export function DeleteButton(props: {
  /** What is deleted: the button is named with it (`Delete Spring EMI`) and the question asks about it. */
  what: string;
  /** What deleting does, said under the question. */
  consequence?: string;
  label?: string;
  onDelete: () => Promise<unknown>;
  onDeleted: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const remove = useAction(async () => {
    await props.onDelete();
    return true;
  });
  const verb = props.label ?? 'Delete';
  const open = () => {
    remove.clearError();
    dialog.current?.showModal();
  };
  // On a refusal the dialog stays open, showing the API's message.
  const confirm = async () => {
    if (!(await remove.run())) return;
    dialog.current?.close();
    props.onDeleted();
  };
  const titleId = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  return (
    <>
      <button type="button" class="danger" aria-label={`${verb} ${props.what}`} onClick={open}>
        {verb}
      </button>
      <dialog ref={dialog} class="confirm" aria-labelledby={titleId}>
        <h2 id={titleId}>
          {verb} “{props.what}”?
        </h2>
        {props.consequence && <p>{props.consequence}</p>}
        <ErrorNote error={remove.error} />
        <div class="buttons">
          <button type="button" class="danger" disabled={remove.busy} onClick={() => void confirm()}>
            Yes, {verb.toLowerCase()}
          </button>
          <button type="button" class="secondary" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

// Opens and closes a native <dialog> as a modal from a boolean (focus trap, Escape and backdrop from the browser).
import { useEffect, useRef, type RefObject } from 'react';

/** A ref to attach to a <dialog>; it is shown modally while `open` is true. */
export function useModal(open: boolean): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}

// A confirmation for controls that destroy work (stop, roll back): a modal <dialog> with the consequence spelled out.
import { type ReactNode } from 'react';
import { useModal } from './use-modal.js';

/** A modal asking to confirm `action`. */
export function ConfirmDialog({ open, title, children, action, onConfirm, onCancel }: { open: boolean; title: string; children: ReactNode; action: string; onConfirm: () => void; onCancel: () => void }) {
  const ref = useModal(open);
  return (
    <dialog ref={ref} className="dialog" onClose={onCancel} aria-labelledby="confirm-title" data-testid="confirm">
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {action}
        </button>
      </div>
    </dialog>
  );
}

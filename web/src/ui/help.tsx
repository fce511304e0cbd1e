// The keyboard shortcuts overlay (`?`).
import { useEffect, useRef } from 'react';
import { SHORTCUTS } from '../lib/shortcuts.js';

/** A modal listing every shortcut. */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} onClose={onClose} className="dialog" aria-labelledby="help-title">
      <h2 id="help-title">Keyboard shortcuts</h2>
      <table className="shortcuts">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={`${s.key}-${s.action}`}>
              <td>
                <kbd>{s.key}</kbd>
              </td>
              <td>{s.label}</td>
              <td className="muted">{s.scopes.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}

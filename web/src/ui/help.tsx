// The keyboard shortcuts overlay (`?`).
import { SHORTCUTS } from '../lib/shortcuts.js';
import { useModal } from './use-modal.js';

/** A modal listing every shortcut. */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useModal(open);
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

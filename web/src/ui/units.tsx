// The tasks of a task loop, or the steps of a workflow, with their state, iterations and cost.
import type { Unit } from '../api/api-types.js';
import { usd } from '../lib/format.js';

/** The units table. */
export function Units({ units, kind }: { units: Unit[]; kind: string }) {
  const noun = kind === 'workflow' ? 'step' : 'task';
  return (
    <table className="units" data-testid="units">
      <thead>
        <tr>
          <th>{noun}</th>
          <th>status</th>
          <th className="num">iterations</th>
          <th className="num">cost</th>
        </tr>
      </thead>
      <tbody>
        {units.map((u) => (
          <tr key={u.id}>
            <td>{u.title ?? u.id}</td>
            <td>{u.status === null ? <span className="muted">-</span> : <span className={`badge badge-${u.status}`}>{u.status}</span>}</td>
            <td className="num">{u.iterations}</td>
            <td className="num">{usd(u.cost_usd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

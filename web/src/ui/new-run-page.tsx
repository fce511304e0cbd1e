// The new-run form: the options of `ringmaster run`, checked as the CLI checks them before anything is
// sent, then by the server (its message shown under the field it names, in the form's words). Empty fields leave
// the server's defaults, which their placeholders show. The groups of fields are in new-run-fields.tsx, the form's
// state and submission in use-new-run.ts.
import { Link } from 'wouter';
import { Field, TextInput } from './new-run-field.js';
import { AgentFields, LimitFields, PromptFields, VerifyFields } from './new-run-fields.js';
import { useNewRun } from './use-new-run.js';

/** The new-run page (`/new`). */
export default function NewRunPage() {
  const { submit, pending, serverError, ...binding } = useNewRun();
  const { form, errors, set } = binding;
  return (
    <form className="new-run" data-testid="new-run" noValidate onSubmit={submit}>
      <h1>New run</h1>
      <Field label="Workspace (directory on the server's machine)" name="workspace" errors={errors}>
        <TextInput name="workspace" binding={binding} placeholder="/home/me/project" />
      </Field>
      <PromptFields binding={binding} />
      <AgentFields binding={binding} />
      <LimitFields binding={binding} />
      <VerifyFields binding={binding} />
      <label className="inline">
        <input type="checkbox" checked={form.worktree} onChange={(e) => set('worktree', e.target.checked)} /> run in a fresh git worktree (--worktree)
      </label>
      <label className="inline">
        <input type="checkbox" checked={form.sandbox} onChange={(e) => set('sandbox', e.target.checked)} /> run every agent in an OS sandbox (--sandbox)
      </label>
      {serverError !== null && (
        <p className="error" role="alert" data-testid="server-error">
          {serverError}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={pending}>
          {pending ? 'Starting…' : 'Start run'}
        </button>
        <Link href="/">Cancel</Link>
      </div>
    </form>
  );
}

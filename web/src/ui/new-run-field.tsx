// One field of the new-run form: its label, its input, and under it a hint or the message that refuses its value
// (the input points at that message for screen readers).
import type { ReactNode } from 'react';
import type { FormErrors, NewRunForm } from '../lib/new-run.js';
import type { FormBinding } from './use-new-run.js';

/** A labelled field; `children` is its input, whose id is `f-<name>`. */
export function Field({ label, name, errors, hint, children }: { label: string; name: keyof NewRunForm; errors: FormErrors; hint?: string; children: ReactNode }) {
  const error = errors[name];
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={`f-${name}`}>{label}</label>
      {children}
      {hint && !error && <small className="muted">{hint}</small>}
      {error && (
        <small className="error" id={`e-${name}`} data-testid={`error-${name}`}>
          {error}
        </small>
      )}
    </div>
  );
}

/** A one-line text input bound to the form's field `name`. */
export function TextInput({ name, binding: { form, errors, set }, placeholder }: { name: keyof NewRunForm; binding: FormBinding; placeholder?: string }) {
  return (
    <input
      id={`f-${name}`}
      name={name}
      type="text"
      placeholder={placeholder}
      value={form[name] as string}
      onChange={(e) => set(name, e.target.value as never)}
      aria-invalid={errors[name] ? true : undefined}
      aria-describedby={errors[name] ? `e-${name}` : undefined}
    />
  );
}

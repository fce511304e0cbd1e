// The new-run form's state and its submission: the fields as typed, the messages under them, the check the CLI
// makes before anything is sent, then the request; the server's refusal is shown under the field it names (or
// above the buttons when it names none), and a created run opens its page.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import type { RunRequest } from '../api/api-types.js';
import { createRun } from '../api/client.js';
import { EMPTY_FORM, fieldOfServerError, validateNewRun, type FormErrors, type NewRunForm } from '../lib/new-run.js';

/** What a field needs: the form's values, the messages, and the way to change one value. */
export interface FormBinding {
  form: NewRunForm;
  errors: FormErrors;
  set: <K extends keyof NewRunForm>(key: K, value: NewRunForm[K]) => void;
}

/** The form, its submission and how the request is doing. */
export interface NewRun extends FormBinding {
  submit: (event: FormEvent) => void;
  /** The request is on its way. */
  pending: boolean;
  /** The server's refusal when it names no field, else null. */
  serverError: string | null;
}

/** The new-run form's state, checked and sent on submit. */
export function useNewRun(): NewRun {
  const [form, setForm] = useState<NewRunForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<FormErrors>({});
  const [, navigate] = useLocation();
  const create = useMutation({
    mutationFn: (body: RunRequest) => createRun(body),
    // The board learns of the new run from its first event; the run page loads it.
    onSuccess: (created) => navigate(`/runs/${encodeURIComponent(created.id)}`),
    onError: (error) => {
      const found = fieldOfServerError(error.message);
      if (found !== null) setErrors((e) => ({ ...e, [found.field]: found.message }));
    },
  });
  const set = <K extends keyof NewRunForm>(key: K, value: NewRunForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = validateNewRun(form);
    setErrors(result.ok ? {} : result.errors);
    if (result.ok) create.mutate(result.body);
  };
  const serverError = create.isError && fieldOfServerError(create.error.message) === null ? create.error.message : null;
  return { form, errors, set, submit, pending: create.isPending, serverError };
}

/** Splits an API failure into messages for the form's own fields and whatever is left for an alert. */
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';

export interface SplitErrors {
  /** By form field: `roles.2` is filed under `roles`. */
  fields: Record<string, string>;
  /** The failure to show as an alert when no shown field carries it; null when every problem has a field. */
  general: unknown;
}

/** `fields` lists the form's field names; a problem at `roles.2` goes to `roles` with the item named. */
export function splitErrors(error: unknown, fields: readonly string[]): SplitErrors {
  if (error === null || error === undefined) return { fields: {}, general: null };
  if (!(error instanceof ApiError)) return { fields: {}, general: error };
  const found: Record<string, string> = {};
  let unplaced = 0;
  for (const [path, message] of Object.entries(error.fieldErrors())) {
    const [head, index] = path.split('.');
    if (head !== undefined && fields.includes(head)) {
      const text = index !== undefined && /^\d+$/.test(index) ? `Item ${Number(index) + 1} ${message}` : capitalise(message);
      found[head] ??= text;
    } else {
      unplaced += 1;
    }
  }
  const placed = Object.keys(found).length;
  return { fields: found, general: placed > 0 && unplaced === 0 ? null : error };
}

// Server messages read as the end of a sentence ("must be ..."); under a field they start one. A message that
// starts with a name (a client ID, a role) keeps the name as it is.
const SENTENCE_START = /^(must|is|are|already|cannot|names|should|has|have|was|does|needs)\b/;

function capitalise(text: string): string {
  return SENTENCE_START.test(text) ? text[0]?.toUpperCase() + text.slice(1) : text;
}

/** Puts the keyboard on the first field marked invalid after a failed save, so nobody hunts for the message. */
export function useFocusInvalid(error: unknown) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (error !== null) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  return form;
}

/** The same after the browser's own checks, once React has marked the fields. */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}

/**
 * The state a dialog form keeps: its values, the problems found before sending (`local`), the server's answer split
 * by field, and whether a save is running. `fields` lists the field names server problems are filed under.
 */
export function useFormState<V extends object>(initial: () => V, fields: readonly string[]) {
  const [values, setValues] = useState<V>(initial);
  const [local, setLocal] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const server = splitErrors(error, fields);
  const form = useFocusInvalid(error);
  const fieldError = (field: string): string | undefined => local[field] ?? server.fields[field];
  /**
   * Sets a field and drops the problems found with it before (its own, and its items' such as `users.1.user`), so the
   * message goes as the person corrects it.
   */
  const set = <K extends keyof V>(field: K, value: V[K]) => {
    setValues((v) => ({ ...v, [field]: value }));
    if (typeof field !== 'string') return;
    const mine = (key: string) => key === field || key.startsWith(`${field}.`);
    if (Object.keys(local).some(mine)) setLocal((problems) => Object.fromEntries(Object.entries(problems).filter(([key]) => !mine(key))));
  };
  /** An onChange for a text input bound to `field`. */
  const text = (field: keyof V) => (e: { currentTarget: { value: string } }) => set(field, e.currentTarget.value as V[keyof V]);
  /** Shows the problems found before sending; false, with the keyboard on the first, when there are any. */
  const check = (problems: Record<string, string>): boolean => {
    setLocal(problems);
    if (Object.keys(problems).length === 0) return true;
    focusFirstInvalid(form.current);
    return false;
  };
  /** Runs a save: busy meanwhile; a failure is kept (and shown) and the form stays usable. */
  const saving = <R>(save: () => Promise<R>, onSaved: (result: R) => void) => {
    setBusy(true);
    setError(null);
    save().then(onSaved, (err: unknown) => {
      setBusy(false);
      setError(err);
    });
  };
  return { values, set, text, fieldError, server, form, busy, check, saving };
}

"use client";

import { useState } from "react";
import { errorWithIssues } from "./request-json";

/**
 * A form's submit: `busy` while `action` runs, its failure as a message with the API's issues
 * (`error`), cleared on the next try. `submit` is the form's onSubmit (it prevents the page load).
 */
export function useSubmit(action: () => Promise<void>): {
  busy: boolean;
  error: string | undefined;
  submit: (event?: React.FormEvent) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event?: React.FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(errorWithIssues(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

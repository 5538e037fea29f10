"use client";

import type { ReactNode } from "react";
import { MAX_STEPS } from "@/lib/api/contracts";
import { hint, input, label } from "../sources/form-styles";

/** The step limit of an LLM agent's form: a number from 1 to MAX_STEPS, empty for the default it names. */
export function StepLimitField(props: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  /** The limit an empty field leaves in force. */
  fallback: number;
  /** What the hint says of it, e.g. "the agent stops. Empty: 10". */
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={`${props.id}-steps`} className={label}>
        Step limit
      </label>
      <input
        id={`${props.id}-steps`}
        type="number"
        min={1}
        max={MAX_STEPS}
        className={`${input} max-w-32`}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder={String(props.fallback)}
      />
      <p className={hint}>{props.children}</p>
    </div>
  );
}

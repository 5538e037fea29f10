import type { ReactNode } from "react";
import type { FieldControl } from "./connect-source-dialog";
import { hint as hintClass, input, label as labelClass } from "./form-styles";

/** One control of a source dialog with its label (naming the control by `htmlFor`) and, when given, a hint under it. */
export function Labelled({
  htmlFor,
  label,
  hint,
  className,
  children,
}: {
  htmlFor: string;
  label: ReactNode;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <label htmlFor={htmlFor} className={labelClass}>
        {label}
      </label>
      {children}
      {hint ? <p className={hintClass}>{hint}</p> : null}
    </div>
  );
}

/**
 * An admin's list of private addresses this source may reach besides what OUTBOUND_ALLOW lists
 * (the outbound guard's allowance for it), as every dialog that adds a remote source asks for it.
 */
export function AllowPrivateField({ control, placeholder, className }: { control: FieldControl; placeholder: string; className?: string }) {
  return (
    <Labelled htmlFor={control.id} label="Also allow these private addresses (admin)" className={className}>
      <input placeholder={placeholder} className={input} {...control} />
    </Labelled>
  );
}

"use client";

import { useId, useState } from "react";
import { primaryType, resolveSchema, schemaVariants, type SchemaNode } from "@/lib/json/schema-shape";

type Schema = SchemaNode;

/**
 * A form generated from a JSON Schema: nested objects, arrays, enums, defaults, `anyOf` / `oneOf`
 * (a choice of variant), local `$ref`s and nullable types. Fields it cannot render get a JSON box.
 */
export function SchemaForm({ schema, value, onChange }: { schema: Schema; value: unknown; onChange: (value: unknown) => void }) {
  const id = useId();
  return <Field root={schema} schema={schema} value={value} onChange={onChange} path={id} label={null} required />;
}

/**
 * How deep a starting value fills required objects, and how many values it is made of at most: a
 * schema whose required fields refer back to it would otherwise never end, or end very large.
 */
const START_DEPTH = 8;
const START_VALUES = 500;
/**
 * Where a field sits, so that the form ends however its schema nests: a schema may contain itself
 * (a team's parent is a team), or use one definition from many places. A field is given as JSON
 * instead of fields when its `$ref` is one a field above it followed (the same definition again),
 * when it is nested deeper than FIELD_DEPTH, or when the form's budget of FIELD_BUDGET objects,
 * lists and choices is spent: each one shown takes one and shares the rest among its fields.
 */
interface Nesting {
  depth: number;
  budget: number;
  /** The `$ref`s the fields above this one followed. */
  refs: readonly string[];
}
const FIELD_DEPTH = 8;
const FIELD_BUDGET = 400;
// The form's schema is the root that "#" refers to.
const TOP: Nesting = { depth: 0, budget: FIELD_BUDGET, refs: ["#"] };

/** The nesting of a field inside one at `nest` that refers to `ref`, given `budget`. */
function inside(nest: Nesting, ref: string | undefined, budget: number): Nesting {
  return { depth: nest.depth + 1, budget, refs: ref === undefined ? nest.refs : [...nest.refs, ref] };
}

/** A starting value for `schema`: its defaults, and required fields filled with empty values. */
export function initialValue(root: Schema, schema: Schema = root): unknown {
  return startValue(root, schema, { left: START_VALUES }, 0);
}

function startValue(root: Schema, schema: Schema, budget: { left: number }, depth: number): unknown {
  budget.left--;
  const resolved = resolveSchema(root, schema);
  if ("default" in resolved) return structuredClone(resolved.default);
  if ("const" in resolved) return resolved.const;
  const deeper = depth < START_DEPTH && budget.left > 0;
  const variants = schemaVariants(resolved);
  if (variants) return deeper ? startValue(root, variants[0]!, budget, depth + 1) : undefined;
  const type = primaryType(resolved);
  if (type === "object") {
    // No prototype: a field named __proto__ is a field like any other.
    const out: Record<string, unknown> = Object.create(null);
    if (!deeper) return out;
    const props = (resolved.properties ?? {}) as Record<string, Schema>;
    const required = new Set((resolved.required as string[] | undefined) ?? []);
    for (const [key, prop] of Object.entries(props)) {
      if (budget.left <= 0) break;
      const sub = resolveSchema(root, prop);
      if ("default" in sub || required.has(key)) out[key] = startValue(root, sub, budget, depth + 1);
    }
    return out;
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") return undefined;
  if (type === "string") return Array.isArray(resolved.enum) ? resolved.enum[0] : "";
  return undefined;
}

function Field({
  root,
  schema,
  value,
  onChange,
  path,
  label,
  required,
  nest = TOP,
}: {
  root: Schema;
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
  label: string | null;
  required: boolean;
  nest?: Nesting;
}) {
  const resolved = resolveSchema(root, schema);
  const ref = typeof schema.$ref === "string" ? schema.$ref : undefined;
  const again = ref !== undefined && nest.refs.includes(ref);
  const nested = !again && nest.depth < FIELD_DEPTH && nest.budget >= 1;
  const title = label ?? (typeof resolved.title === "string" ? resolved.title : null);
  const variants = schemaVariants(resolved);
  const type = primaryType(resolved);
  const ownDescription = typeof resolved.description === "string" ? resolved.description : undefined;
  // What the form does not nest any deeper is a JSON box, which says why.
  const asJson = !nested && (variants || type === "object" || type === "array");
  const why = again ? "The same kind as a field above it: give it as JSON." : "Nested deeper than the form goes: give it as JSON.";
  const description = asJson ? [ownDescription, why].filter(Boolean).join(" ") : ownDescription;
  if (variants && nested)
    return (
      <VariantField
        root={root}
        variants={variants}
        value={value}
        onChange={onChange}
        path={path}
        label={title}
        required={required}
        description={description}
        nest={inside(nest, ref, nest.budget - 1)}
      />
    );

  if (type === "object" && resolved.properties && nested) {
    const props = resolved.properties as Record<string, Schema>;
    const requiredSet = new Set((resolved.required as string[] | undefined) ?? []);
    const current = isRecord(value) ? value : {};
    const entries = Object.entries(props);
    const share = inside(nest, ref, (nest.budget - 1) / Math.max(1, entries.length));
    const body = entries.map(([key, prop]) => (
      <Field
        key={key}
        root={root}
        schema={prop}
        value={current[key]}
        path={`${path}-${key}`}
        label={(resolveSchema(root, prop).title as string | undefined) ?? key}
        required={requiredSet.has(key)}
        nest={share}
        onChange={(next) => {
          const copy = { ...current };
          if (next === undefined) delete copy[key];
          // Defined, not assigned: a field named __proto__ is a field like any other.
          else Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
          onChange(copy);
        }}
      />
    ));
    if (title === null) return <div className="space-y-3">{body}</div>;
    return (
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-medium">
          {title}
          {required ? <RequiredMark /> : null}
        </legend>
        {description ? <p className="text-xs text-slate-500">{description}</p> : null}
        {body}
      </fieldset>
    );
  }

  if (type === "array" && nested) {
    const items = (resolved.items ?? {}) as Schema;
    const list = Array.isArray(value) ? value : [];
    return (
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-medium">
          {title ?? "Items"}
          {required ? <RequiredMark /> : null}
        </legend>
        {description ? <p className="text-xs text-slate-500">{description}</p> : null}
        {list.map((item, i) => (
          <div key={i} className="flex items-start gap-2">
            <div className="flex-1">
              <Field
                root={root}
                schema={items}
                value={item}
                path={`${path}-${i}`}
                label={`${title ?? "Item"} ${i + 1}`}
                required
                nest={inside(nest, ref, (nest.budget - 1) / list.length)}
                onChange={(next) => onChange(list.map((v, j) => (j === i ? next : v)))}
              />
            </div>
            <button
              type="button"
              className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100"
              onClick={() => onChange(list.filter((_, j) => j !== i))}
              aria-label={`Remove ${title ?? "item"} ${i + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100"
          onClick={() => onChange([...list, initialValue(root, items)])}
        >
          Add {title ? title.replace(/s$/, "") : "item"}
        </button>
      </fieldset>
    );
  }

  const inputId = `${path}-input`;
  const labelNode = title !== null && (
    <label htmlFor={inputId} className="block text-sm font-medium">
      {title}
      {required ? <RequiredMark /> : null}
    </label>
  );
  const hint = description ? (
    <p id={`${inputId}-hint`} className="text-xs text-slate-500">
      {description}
    </p>
  ) : null;
  const describedBy = description ? `${inputId}-hint` : undefined;
  const inputClass = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm";

  if (Array.isArray(resolved.enum)) {
    const options = resolved.enum as unknown[];
    const index = options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
    return (
      <div>
        {labelNode}
        <select
          id={inputId}
          required={required}
          aria-describedby={describedBy}
          className={inputClass}
          value={index === -1 ? "" : String(index)}
          onChange={(e) => onChange(e.target.value === "" ? undefined : options[Number(e.target.value)])}
        >
          {!required || index === -1 ? <option value="">(none)</option> : null}
          {options.map((o, i) => (
            <option key={i} value={String(i)}>
              {typeof o === "string" ? o : JSON.stringify(o)}
            </option>
          ))}
        </select>
        {hint}
      </div>
    );
  }
  if (type === "boolean")
    return (
      <div className="flex items-start gap-2">
        <input
          id={inputId}
          type="checkbox"
          className="mt-1"
          aria-describedby={describedBy}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
        <div>
          {title !== null ? (
            <label htmlFor={inputId} className="text-sm font-medium">
              {title}
            </label>
          ) : null}
          {hint}
        </div>
      </div>
    );
  if (type === "number" || type === "integer")
    return (
      <div>
        {labelNode}
        <input
          id={inputId}
          type="number"
          step={type === "integer" ? 1 : "any"}
          required={required}
          aria-describedby={describedBy}
          className={inputClass}
          value={typeof value === "number" ? String(value) : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
        {hint}
      </div>
    );
  if (type === "string") {
    const long = typeof resolved.maxLength === "number" ? resolved.maxLength > 200 : false;
    return (
      <div>
        {labelNode}
        {long ? (
          <textarea
            id={inputId}
            required={required}
            aria-describedby={describedBy}
            className={inputClass}
            rows={3}
            value={typeof value === "string" ? value : ""}
            onChange={(e) => onChange(e.target.value === "" && !required ? undefined : e.target.value)}
          />
        ) : (
          <input
            id={inputId}
            type="text"
            required={required}
            aria-describedby={describedBy}
            className={inputClass}
            value={typeof value === "string" ? value : ""}
            onChange={(e) => onChange(e.target.value === "" && !required ? undefined : e.target.value)}
          />
        )}
        {hint}
      </div>
    );
  }
  if (type === "null") return null;
  return <JsonField inputId={inputId} labelNode={labelNode} hint={hint} value={value} onChange={onChange} />;
}

/** A visual "required" star; screen readers get `required` on the control instead. */
function RequiredMark() {
  return (
    <span className="text-red-600" aria-hidden>
      {" *"}
    </span>
  );
}

function VariantField({
  root,
  variants,
  value,
  onChange,
  path,
  label,
  required,
  description,
  nest,
}: {
  root: Schema;
  variants: Schema[];
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
  label: string | null;
  required: boolean;
  description?: string;
  /** Where its chosen variant sits (see Nesting). */
  nest: Nesting;
}) {
  const matching = variants.findIndex((v) => matches(root, v, value));
  const [chosen, setChosen] = useState(matching === -1 ? 0 : matching);
  const selectId = `${path}-variant`;
  return (
    <div className="space-y-2 rounded-md border border-dashed border-slate-300 p-3">
      <label htmlFor={selectId} className="block text-sm font-medium">
        {label ?? "Value"}
        {required ? <RequiredMark /> : null}
        <span className="ml-1 font-normal text-slate-500">(one of)</span>
      </label>
      {description ? <p className="text-xs text-slate-500">{description}</p> : null}
      <select
        id={selectId}
        className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
        value={String(chosen)}
        onChange={(e) => {
          const index = Number(e.target.value);
          setChosen(index);
          onChange(initialValue(root, variants[index]!));
        }}
      >
        {variants.map((v, i) => (
          <option key={i} value={String(i)}>
            {variantLabel(root, v, i)}
          </option>
        ))}
      </select>
      <Field
        root={root}
        schema={variants[chosen]!}
        value={value}
        onChange={onChange}
        path={`${path}-${chosen}`}
        label={null}
        required={required}
        nest={nest}
      />
    </div>
  );
}

function JsonField({
  inputId,
  labelNode,
  hint,
  value,
  onChange,
}: {
  inputId: string;
  labelNode: React.ReactNode;
  hint: React.ReactNode;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  const [error, setError] = useState<string>();
  return (
    <div>
      {labelNode}
      <textarea
        id={inputId}
        rows={3}
        className="mt-1 w-full rounded-md border border-slate-300 px-2 py-1.5 font-mono text-xs"
        value={text}
        aria-invalid={error ? true : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (!e.target.value.trim()) {
            setError(undefined);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(e.target.value));
            setError(undefined);
          } catch {
            setError("Not valid JSON yet");
          }
        }}
      />
      {error ? <p className="text-xs text-red-700">{error}</p> : null}
      {hint}
    </div>
  );
}

function matches(root: Schema, schema: Schema, value: unknown): boolean {
  const type = primaryType(resolveSchema(root, schema));
  if (value === undefined) return false;
  if (type === "object") return isRecord(value);
  if (type === "array") return Array.isArray(value);
  if (type === "integer") return Number.isInteger(value);
  if (type === "null") return value === null;
  return typeof value === type;
}

function variantLabel(root: Schema, schema: Schema, index: number): string {
  const resolved = resolveSchema(root, schema);
  if (typeof resolved.title === "string") return resolved.title;
  const ref = typeof schema.$ref === "string" ? schema.$ref.split("/").at(-1) : undefined;
  return ref ?? `${index + 1}: ${primaryType(resolved) ?? "value"}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

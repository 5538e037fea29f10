import type { OpenApiPreview } from "@/lib/api/contracts";

/** Preview tables past this many rows show a count instead: the import still takes every operation. */
const PREVIEW_ROWS = 500;

/** What an import would register: the document, the operations, the tools they become and the warnings. */
export function PreviewView({ preview }: { preview: OpenApiPreview }) {
  const shown = preview.operations.slice(0, PREVIEW_ROWS);
  return (
    <section aria-label="Preview" className="space-y-3 rounded-md border border-slate-200 p-3">
      <h3 className="text-sm font-semibold">
        {preview.title} {preview.version} <span className="font-normal text-slate-500">(OpenAPI {preview.openapi})</span>
      </h3>
      <p className="text-sm text-slate-700">
        {preview.operations.length} {preview.operations.length === 1 ? "operation becomes a tool" : "operations become tools"}, calling{" "}
        {preview.baseUrls.filter(Boolean).join(", ") || "no absolute server URL"}.
      </p>
      <Warnings warnings={preview.warnings} />
      <div className="max-h-72 overflow-auto">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Operations and the tools they become</caption>
          <thead className="sticky top-0 bg-white text-slate-500">
            <tr>
              <th scope="col" className="py-1 pr-2">
                Operation
              </th>
              <th scope="col" className="py-1 pr-2">
                Tool name
              </th>
              <th scope="col" className="py-1 pr-2">
                Effect
              </th>
              <th scope="col" className="py-1">
                Approval
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((op) => (
              <tr key={`${op.method} ${op.path}`} className="border-t border-slate-100">
                <td className="py-1 pr-2 font-mono">
                  {op.method.toUpperCase()} {op.path}
                </td>
                <td className="py-1 pr-2 font-mono">{op.toolName}</td>
                <td className="py-1 pr-2">{op.effects}</td>
                <td className="py-1">{op.confirm ? "asks" : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {preview.operations.length > shown.length ? (
          <p className="mt-1 text-xs text-slate-500">and {preview.operations.length - shown.length} more operations</p>
        ) : null}
      </div>
    </section>
  );
}

export function Warnings({ warnings }: { warnings: string[] }) {
  if (!warnings.length) return null;
  return (
    <div className="rounded-md bg-amber-50 p-2 text-xs text-amber-900">
      <p className="font-medium">
        {warnings.length} {warnings.length === 1 ? "warning" : "warnings"}
      </p>
      <ul aria-label="Warnings" className="mt-1 list-disc space-y-0.5 pl-5">
        {warnings.map((warning, i) => (
          <li key={i}>{warning}</li>
        ))}
      </ul>
    </div>
  );
}

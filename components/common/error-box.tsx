import { ApiError, errorMessage } from "./request-json";

/** An error as a person reads it: the message, then each problem on its own line. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const issues = error instanceof ApiError ? error.issues : [];
  return (
    <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
      {title ? <p className="font-semibold">{title}</p> : null}
      <p className="whitespace-pre-wrap">{errorMessage(error)}</p>
      {issues.length ? (
        <ul className="mt-1 list-disc pl-5 text-xs">
          {issues.map((issue, i) => (
            <li key={i}>
              {issue.path ? <code className="font-mono">{issue.path}</code> : null} {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

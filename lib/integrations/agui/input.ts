import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { readCappedText } from "../../http/read-capped";

export interface InputIssue {
  path: string;
  message: string;
}

export type ParsedInput = { ok: true; input: RunAgentInput } | { ok: false; issues: InputIssue[] };

/** Bounds on what one run may carry, beyond the protocol's schema. */
export const INPUT_LIMITS = {
  idLength: 200,
  messages: 2_000,
  tools: 200,
  context: 100,
  resume: 100,
} as const;

/**
 * A validated RunAgentInput from request JSON: the protocol's own schema (@ag-ui/core/schemas),
 * then the console's bounds (id lengths, message, tool and resume counts, unique interrupt ids).
 */
export function parseRunInput(body: unknown): ParsedInput {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success)
    return {
      ok: false,
      issues: parsed.error.issues.slice(0, 20).map((issue) => ({ path: `/${issue.path.map(String).join("/")}`, message: issue.message })),
    };
  const input = parsed.data as RunAgentInput;
  const issues: InputIssue[] = [];
  for (const key of ["threadId", "runId", "parentRunId"] as const) {
    const id = input[key];
    if (id !== undefined && (id.length === 0 || id.length > INPUT_LIMITS.idLength)) issues.push({ path: `/${key}`, message: `must be 1 to ${INPUT_LIMITS.idLength} characters` });
  }
  if (input.messages.length > INPUT_LIMITS.messages) issues.push({ path: "/messages", message: `at most ${INPUT_LIMITS.messages} messages per run` });
  if ((input.tools ?? []).length > INPUT_LIMITS.tools) issues.push({ path: "/tools", message: `at most ${INPUT_LIMITS.tools} client tools` });
  if ((input.context ?? []).length > INPUT_LIMITS.context) issues.push({ path: "/context", message: `at most ${INPUT_LIMITS.context} context entries` });
  const resume = input.resume ?? [];
  if (resume.length > INPUT_LIMITS.resume) issues.push({ path: "/resume", message: `at most ${INPUT_LIMITS.resume} resume entries` });
  const seen = new Set<string>();
  resume.forEach((entry, i) => {
    if (seen.has(entry.interruptId)) issues.push({ path: `/resume/${i}/interruptId`, message: "duplicates an earlier entry" });
    seen.add(entry.interruptId);
    if (entry.interruptId.length > INPUT_LIMITS.idLength) issues.push({ path: `/resume/${i}/interruptId`, message: "is too long" });
  });
  return issues.length ? { ok: false, issues } : { ok: true, input };
}

export type BodyRead = { ok: true; text: string } | { ok: false; status: 413 | 422; message: string };

/** The request body as text, refusing more than `maxBytes` without reading it all. */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<BodyRead> {
  const read = await readCappedText(request.body, maxBytes, request.headers.get("content-length"));
  if (read.ok) return read;
  return read.reason === "too_large"
    ? { ok: false, status: 413, message: `The body is larger than ${maxBytes} bytes` }
    : { ok: false, status: 422, message: "The body is not valid UTF-8" };
}

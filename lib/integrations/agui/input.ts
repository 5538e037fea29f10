import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { DomainError, type Issue } from "../../errors";
import { parseUntrusted } from "../../json/untrusted";

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
 * Throws DomainError (invalid_body) with the issues.
 */
export function parseRunInput(body: unknown): RunAgentInput {
  const parsed = parseUntrusted(RunAgentInputSchema, body);
  if (!parsed.success)
    throw invalid(parsed.issues.slice(0, 20).map((issue) => ({ path: `/${issue.path.map(String).join("/")}`, message: issue.message })));
  const input = parsed.data as RunAgentInput;
  const issues: Issue[] = [];
  for (const key of ["threadId", "runId", "parentRunId"] as const) {
    const id = input[key];
    if (id !== undefined && (id.length === 0 || id.length > INPUT_LIMITS.idLength))
      issues.push({ path: `/${key}`, message: `must be 1 to ${INPUT_LIMITS.idLength} characters` });
  }
  if (input.messages.length > INPUT_LIMITS.messages)
    issues.push({ path: "/messages", message: `at most ${INPUT_LIMITS.messages} messages per run` });
  if ((input.tools ?? []).length > INPUT_LIMITS.tools)
    issues.push({ path: "/tools", message: `at most ${INPUT_LIMITS.tools} client tools` });
  if ((input.context ?? []).length > INPUT_LIMITS.context)
    issues.push({ path: "/context", message: `at most ${INPUT_LIMITS.context} context entries` });
  const resume = input.resume ?? [];
  if (resume.length > INPUT_LIMITS.resume) issues.push({ path: "/resume", message: `at most ${INPUT_LIMITS.resume} resume entries` });
  const seen = new Set<string>();
  resume.forEach((entry, i) => {
    if (seen.has(entry.interruptId)) issues.push({ path: `/resume/${i}/interruptId`, message: "duplicates an earlier entry" });
    seen.add(entry.interruptId);
    if (entry.interruptId.length > INPUT_LIMITS.idLength) issues.push({ path: `/resume/${i}/interruptId`, message: "is too long" });
  });
  if (issues.length) throw invalid(issues);
  return input;
}

function invalid(issues: Issue[]): DomainError {
  return new DomainError("invalid_body", "The body is not a valid AG-UI RunAgentInput", { issues });
}

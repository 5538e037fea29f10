import { z } from "zod";

/**
 * What a person says about a call that waits for approval: the body of
 * POST /api/approvals/[id]/decision, and the payload of an AG-UI resume entry (whose interrupt
 * advertises this schema as its responseSchema).
 */
export const DecisionPayload = z
  .object({
    approved: z.boolean().describe("Run the call (true) or refuse it (false)."),
    reason: z.string().trim().max(2000).optional().describe("Why, shown to the agent and kept in the audit trail."),
    editedArgs: z.record(z.string(), z.unknown()).optional().describe("Arguments to run instead of the proposed ones (whole replacement)."),
    rememberForThread: z.boolean().optional().describe("For tools asked once per thread: approve later calls in this thread too."),
  })
  .strict();
export type DecisionPayload = z.output<typeof DecisionPayload>;

/** The decision payload as JSON Schema (2020-12), generated from the zod schema so the two never differ. */
export const DECISION_RESPONSE_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze(
  (({ $schema: _ignored, ...schema }) => schema)(z.toJSONSchema(DecisionPayload, { target: "draft-2020-12", io: "input" })),
);

import { z } from "zod";

/** How one argument reaches the HTTP request. */
export const ParameterBinding = z.object({
  /** The name on the wire (header, query key, path variable). */
  name: z.string(),
  in: z.enum(["path", "query", "header", "cookie"]),
  /** The argument's property name in the tool's input schema. */
  property: z.string(),
  style: z.string().optional(),
  explode: z.boolean().optional(),
  /** The parameter uses `content` with a JSON media type: its value goes as JSON text. */
  json: z.boolean().optional(),
});
export type ParameterBinding = z.infer<typeof ParameterBinding>;

/** What an OpenAPI tool's handler needs, stored on the tool so it can be rebuilt after a restart. */
export const OpenApiBinding = z.object({
  method: z.enum(["get", "put", "post", "delete", "patch", "head"]),
  path: z.string(),
  baseUrl: z.string(),
  parameters: z.array(ParameterBinding),
  body: z.object({ property: z.string(), contentType: z.string() }).optional(),
  timeoutMs: z.number().int().positive(),
  maxResponseBytes: z.number().int().positive(),
  /** Kept by bindings imported before the outbound guard; the guard decides now (OUTBOUND_ALLOW). */
  allowPrivate: z.boolean().optional(),
});
export type OpenApiBinding = z.infer<typeof OpenApiBinding>;

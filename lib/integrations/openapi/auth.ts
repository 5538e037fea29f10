import { z } from "zod";

/** How calls of a source authenticate: a bearer token, a fixed header, or a query parameter. */
export const OpenApiAuth = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("bearer"), token: z.string().min(1) }),
  z.object({
    kind: z.literal("header"),
    name: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be a header name"),
    value: z.string().min(1),
  }),
  z.object({ kind: z.literal("query"), name: z.string().min(1).max(200), value: z.string().min(1) }),
]);
export type OpenApiAuth = z.infer<typeof OpenApiAuth>;

/** What is stored and shown about a source's credential: its kind and where it goes, never the secret. */
export interface AuthRef {
  kind: OpenApiAuth["kind"];
  /** The header or query parameter that carries it. */
  name: string;
}

/** Split a credential into what may be shown (the reference) and what may not (the secret). */
export function splitAuth(auth: OpenApiAuth): { ref: AuthRef; secret: string } {
  switch (auth.kind) {
    case "bearer":
      return { ref: { kind: "bearer", name: "Authorization" }, secret: auth.token };
    case "header":
    case "query":
      return { ref: { kind: auth.kind, name: auth.name }, secret: auth.value };
  }
}

/** Put a credential on a request being built. */
export function applyAuth(ref: AuthRef, secret: string, headers: Headers, url: URL): void {
  if (ref.kind === "bearer") headers.set("authorization", `Bearer ${secret}`);
  else if (ref.kind === "header") headers.set(ref.name, secret);
  else url.searchParams.set(ref.name, secret);
}

/** A URL safe to log: the query credential's value replaced by "***". */
export function maskedUrl(url: URL, ref: AuthRef | undefined): string {
  if (ref?.kind !== "query" || !url.searchParams.has(ref.name)) return url.toString();
  const copy = new URL(url);
  copy.searchParams.set(ref.name, "***");
  return copy.toString();
}

/** `text` with every occurrence of the secret replaced (servers that echo requests would leak it). */
export function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join("***") : text;
}

import { validate } from "@readme/openapi-parser";
import { resolveRef } from "../../json/pointer";
import { OpenApiDocumentError } from "./errors";

/**
 * The full validator inlines every local `$ref` and then walks the result as a tree, so its cost
 * follows the size of the document with its `$ref`s inlined, not the number of operations. Measured
 * here (2 cores): about 0.35 µs per inlined node plus 0.3-0.4 s to compile the OpenAPI meta-schema;
 * a generated 2,000-operation document of 0.8 MB (0.86 M nodes inlined) took 0.5 s, one of 40
 * operations whose models fan out four ways over five layers (14.6 M nodes) 5 to 12 s. Past these
 * bounds the validator is not run and the import says so; the importer's own checks (paths,
 * $refs, parameters, bodies, responses, depth) run on every document either way.
 */
export const VALIDATION_MAX_NODES = 3_000_000;

/** The validator (and the OpenAPI meta-schema's ajv) recurse over the inlined document. */
export const VALIDATION_MAX_DEPTH = 512;

/**
 * Run the full OpenAPI validator on `document` when its inlined size allows, and say so: undefined
 * when it ran and passed, a warning for the import when it was not run. Throws OpenApiDocumentError
 * with the validator's reasons when the document is invalid.
 */
export async function validateDocument(document: Record<string, unknown>): Promise<string | undefined> {
  const inlined = inlinedShape(document, VALIDATION_MAX_NODES, VALIDATION_MAX_DEPTH);
  if (inlined.over)
    return `The document is too large for the full OpenAPI validator once its $refs are inlined (more than ${
      inlined.over === "nodes" ? `${VALIDATION_MAX_NODES.toLocaleString("en")} values` : `${VALIDATION_MAX_DEPTH} levels`
    }): it was checked by the importer only`;
  // The validator resolves $refs in its copy; external ones are left alone (never fetched) and refused later by the converter.
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0], { resolve: { external: false, file: false } });
  if (!result.valid) {
    const problems = result.errors.slice(0, 10).map((e) => e.message.split("\n")[0]!.trim());
    if (result.additionalErrors) problems.push(`and ${result.additionalErrors} more`);
    throw new OpenApiDocumentError("The document is not valid OpenAPI", problems);
  }
  return undefined;
}

interface Frame {
  node: object;
  children: unknown[];
  next: number;
  size: number;
  depth: number;
}

/**
 * How many values, and how many levels, `document` holds once every local `$ref` is replaced by
 * what it points at, as the validator sees it: a `$ref` back into its own ancestry stays a `$ref`
 * (the validator leaves circular ones alone), and a target reached again counts again. Stops as
 * soon as either bound is passed. Iterative and memoised, so linear in the document's own size.
 */
export function inlinedShape(document: unknown, maxNodes: number, maxDepth: number): { over?: "nodes" | "depth" } {
  const known = new Map<object, { size: number; depth: number }>();
  const open = new Set<object>();
  const frames: Frame[] = [];
  // What a value stands for once inlined: the target of a local $ref (followed through chains), else itself.
  const target = (value: object): object => {
    let node = value;
    for (let hops = 0; hops < 64; hops++) {
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref !== "string" || !ref.startsWith("#")) return node;
      const next = resolveRef(document, ref);
      if (next === null || typeof next !== "object") return node;
      node = next;
    }
    return node;
  };
  /** The shape of a value when it is known at once; undefined when a frame was opened for it. */
  const enter = (value: unknown): { size: number; depth: number } | undefined => {
    if (value === null || typeof value !== "object") return { size: 1, depth: 0 };
    const node = target(value);
    if (open.has(node)) return { size: 1, depth: 1 }; // circular: left as a $ref
    const shape = known.get(node);
    if (shape) return shape;
    open.add(node);
    frames.push({ node, children: Array.isArray(node) ? node : Object.values(node), next: 0, size: 1, depth: 1 });
    return undefined;
  };
  const add = (frame: Frame, child: { size: number; depth: number }): "nodes" | "depth" | undefined => {
    frame.size += child.size;
    frame.depth = Math.max(frame.depth, child.depth + 1);
    if (frame.size > maxNodes) return "nodes";
    if (frames.length - 1 + frame.depth > maxDepth) return "depth";
    return undefined;
  };
  const root = enter(document);
  if (root) return {};
  while (frames.length) {
    const frame = frames[frames.length - 1]!;
    if (frame.next < frame.children.length) {
      const child = enter(frame.children[frame.next++]);
      if (!child && frames.length > maxDepth) return { over: "depth" };
      const over = child && add(frame, child);
      if (over) return { over };
      continue;
    }
    frames.pop();
    open.delete(frame.node);
    const shape = { size: frame.size, depth: frame.depth };
    known.set(frame.node, shape);
    const parent = frames[frames.length - 1];
    const over = parent && add(parent, shape);
    if (over) return { over };
  }
  return {};
}

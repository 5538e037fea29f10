// JSON Pointers (RFC 6901) as the `$ref`s of JSON Schema write them: a URI fragment ("#/a/b~1c"),
// percent-encoded, whose tokens escape "~" as "~0" and "/" as "~1".

/** One reference token decoded: percent-escapes first, then ~1 and ~0. Undefined when its percent-encoding is malformed. */
export function decodeToken(token: string): string | undefined {
  let text: string;
  try {
    text = decodeURIComponent(token);
  } catch {
    return undefined;
  }
  return text.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** A key as one reference token (~ and / escaped; no percent-encoding). */
export function encodeToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The keys a local `$ref` ("#", "#/a/b") names, or undefined when it is not local or not well formed. */
export function refTokens(ref: string): string[] | undefined {
  if (ref === "#") return [];
  if (!ref.startsWith("#/")) return undefined;
  const keys: string[] = [];
  for (const token of ref.slice(2).split("/")) {
    const key = decodeToken(token);
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}

/**
 * What a local `$ref` points at inside `root`, following own properties only (a "__proto__" token
 * finds nothing); undefined when it does not resolve.
 */
export function resolveRef(root: unknown, ref: string): unknown {
  const keys = refTokens(ref);
  if (!keys) return undefined;
  let node: unknown = root;
  for (const key of keys) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * JSON Patch (RFC 6902) for the shared state, without copying the whole document per patch.
 *
 * A patch copies only the containers on the paths it changes; everything else is shared with the
 * document before it, so a reader holding the old document keeps seeing it unchanged. Containers
 * this patcher made since its last `publish()` have not been handed to any reader, so later
 * operations change them in place: a burst of deltas between two reads copies each container on
 * its paths once, not once per delta.
 */
export class SharedPatcher {
  /** Containers made by this patcher since the last `publish()`. */
  private fresh = new Set<object>();
  /** While a patch that may fail after writing runs: how to take back each in-place write, in order. */
  private undo: (() => void)[] | undefined;

  /** A reader is about to hold the current document: containers made so far must not change again. */
  publish(): void {
    if (this.fresh.size > 0) this.fresh = new Set();
  }

  /**
   * Applies `operations` in order and returns the new document. Throws JsonPatchError when an
   * operation is malformed, its path is missing or a `test` fails; then `document` is as it was.
   */
  apply(document: unknown, operations: readonly unknown[]): unknown {
    const parsed = operations.map(readOperation);
    // One operation checks its path before it writes anything. A longer patch (or a move, which
    // removes and then adds) may fail after an earlier step wrote into an unpublished container:
    // it keeps an undo list and takes those writes back.
    const undo: (() => void)[] | undefined = parsed.length === 1 && parsed[0]!.op !== "move" ? undefined : [];
    this.undo = undo;
    let doc = document;
    try {
      for (const operation of parsed) doc = this.applyOne(doc, operation);
    } catch (error) {
      if (undo) for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    } finally {
      this.undo = undefined;
    }
    return doc;
  }

  private applyOne(doc: unknown, op: Operation): unknown {
    switch (op.op) {
      case "add":
        return this.add(doc, op.path, op.value);
      case "remove":
        return this.remove(doc, op.path);
      case "replace":
        this.get(doc, op.path);
        return op.path.length === 0 ? op.value : this.set(doc, op.path, op.value, "replace");
      case "move": {
        if (op.from.length < op.path.length && op.from.every((token, i) => token === op.path[i])) {
          throw new JsonPatchError(`move cannot put ${pointer(op.from)} inside itself`);
        }
        const value = this.get(doc, op.from);
        return this.add(this.remove(doc, op.from), op.path, value);
      }
      case "copy":
        return this.add(doc, op.path, structuredClone(this.get(doc, op.from)));
      case "test":
        if (!deepEqual(this.get(doc, op.path), op.value)) throw new JsonPatchError(`test failed at ${pointer(op.path)}`);
        return doc;
    }
  }

  private get(doc: unknown, path: readonly string[]): unknown {
    let node = doc;
    for (const token of path) {
      if (Array.isArray(node)) {
        const index = arrayIndex(token, node.length - 1, path);
        node = node[index];
      } else if (isObject(node) && Object.hasOwn(node, token)) {
        node = node[token];
      } else {
        throw new JsonPatchError(`${pointer(path)} does not exist`);
      }
    }
    return node;
  }

  private add(doc: unknown, path: readonly string[], value: unknown): unknown {
    return path.length === 0 ? value : this.set(doc, path, value, "add");
  }

  private remove(doc: unknown, path: readonly string[]): unknown {
    if (path.length === 0) throw new JsonPatchError("remove cannot remove the whole document");
    this.get(doc, path);
    return this.set(doc, path, undefined, "remove");
  }

  /** Returns `doc` with the value at `path` (from `depth` on) added, replaced or removed, copying the published containers on the way. */
  private set(doc: unknown, path: readonly string[], value: unknown, mode: "add" | "replace" | "remove", depth = 0): unknown {
    const token = path[depth]!;
    const container = this.writable(doc, path);
    if (Array.isArray(container)) {
      const last = depth === path.length - 1;
      if (last && mode === "add") {
        const index = token === "-" ? container.length : arrayIndex(token, container.length, path);
        container.splice(index, 0, value);
        this.undo?.push(() => container.splice(index, 1));
      } else {
        const index = arrayIndex(token, container.length - 1, path);
        const old = container[index];
        if (last && mode === "remove") {
          container.splice(index, 1);
          this.undo?.push(() => container.splice(index, 0, old));
        } else {
          container[index] = last ? value : this.set(old, path, value, mode, depth + 1);
          this.undo?.push(() => (container[index] = old));
        }
      }
      return container;
    }
    const had = Object.hasOwn(container, token);
    const old = container[token];
    if (depth < path.length - 1) {
      if (!had) throw new JsonPatchError(`${pointer(path)} does not exist`);
      setOwn(container, token, this.set(old, path, value, mode, depth + 1));
    } else if (mode === "remove") {
      delete container[token];
    } else {
      setOwn(container, token, value);
    }
    this.undo?.push(() => (had ? setOwn(container, token, old) : delete container[token]));
    return container;
  }

  /** The container itself when this patcher made it since the last publish, else a shallow copy of it (then fresh). */
  private writable(node: unknown, path: readonly string[]): unknown[] | Record<string, unknown> {
    if (!Array.isArray(node) && !isObject(node)) throw new JsonPatchError(`${pointer(path)}: its parent is not an object or array`);
    if (this.fresh.has(node)) return node;
    const copy = Array.isArray(node) ? node.slice() : { ...node };
    this.fresh.add(copy);
    return copy;
  }
}

/** A patch operation the patcher refused; the message names the operation and the path. */
export class JsonPatchError extends Error {
  override name = "JsonPatchError";
}

type Operation =
  | { op: "add" | "replace" | "test"; path: string[]; value: unknown }
  | { op: "remove"; path: string[] }
  | { op: "move" | "copy"; path: string[]; from: string[] };

function readOperation(raw: unknown, index: number): Operation {
  if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
    throw new JsonPatchError(`operation ${index} needs an op and a path`);
  }
  const path = parsePointer(raw.path);
  switch (raw.op) {
    case "add":
    case "replace":
    case "test":
      if (!("value" in raw) || raw.value === undefined) throw new JsonPatchError(`operation ${index} (${raw.op}) needs a value`);
      return { op: raw.op, path, value: raw.value };
    case "remove":
      return { op: "remove", path };
    case "move":
    case "copy":
      if (typeof raw.from !== "string") throw new JsonPatchError(`operation ${index} (${raw.op}) needs a from`);
      return { op: raw.op, path, from: parsePointer(raw.from) };
    default:
      throw new JsonPatchError(`operation ${index} has an unknown op ${JSON.stringify(raw.op).slice(0, 40)}`);
  }
}

/** RFC 6901: "" is the whole document, "/a~1b/~0c" is ["a/b", "~c"]. */
function parsePointer(text: string): string[] {
  if (text === "") return [];
  if (!text.startsWith("/")) throw new JsonPatchError(`${JSON.stringify(text).slice(0, 80)} is not a JSON pointer`);
  const tokens = text.slice(1).split("/");
  if (!text.includes("~")) return tokens;
  return tokens.map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function pointer(path: readonly string[]): string {
  return path.length === 0 ? '""' : `/${path.map((token) => token.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

/** An array index in 0..max, written without leading zeros. */
function arrayIndex(token: string, max: number, path: readonly string[]): number {
  // Digits only, no leading zero: "01", "-0", "1e3" and " 1" name no element.
  const index = Number(token);
  if (!Number.isInteger(index) || index < 0 || index > max || String(index) !== token) {
    throw new JsonPatchError(`${pointer(path)} does not exist`);
  }
  return index;
}

/** Sets an own data property: a key named `__proto__` is data in JSON, never the object's prototype. */
function setOwn(container: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
  else container[key] = value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

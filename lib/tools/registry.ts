import type { Db } from "../db";
import { ToolNameTaken, ToolRows, type ToolRow, type ToolRowStore } from "../db/tools";
import { canonicalJson, jsonDigest } from "../json/canonical";
import { parseUntrusted } from "../json/untrusted";
import { mapInTurns } from "../streams/turn-budget";
import { DuplicateTool, ToolDefinitionError, ToolUsageError } from "./errors";
import type { ToolHandler } from "./handler";
import { assertUsableSchema } from "./schema";
import { resolvePolicy, ToolSpecInput, type ApprovalPolicy, type Effects, type RegisteredTool, type Target, type ToolSpec } from "./spec";

/** How a change reached a cache: `reloaded` when it was read back from the rows another instance wrote. */
export interface ChangeOrigin {
  reloaded: true;
}

/** Rebuilds the handler of an imported tool from its stored binding (after a restart, say). */
export type HandlerBinder = (tool: RegisteredTool) => ToolHandler | undefined;

export interface ToolListFilter {
  target?: Target;
  tag?: string;
  sourceId?: string;
  kind?: string;
  effects?: Effects;
  /** Only tools that ask for approval (true) or that never do (false), as operators set them. */
  needsApproval?: boolean;
  enabled?: boolean;
  /** Words that must all appear in the name, title, description or tags (case-insensitive). */
  text?: string;
  cursor?: string;
  /** Page size, 1 to 1000 (default 100). */
  limit?: number;
}

export interface ToolPage {
  items: RegisteredTool[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
  total: number;
}

/** What an operator may change on a registered tool. */
export interface ToolSettings {
  enabled?: boolean;
  approval?: ApprovalPolicy;
  timeoutMs?: number;
  retries?: number;
  targets?: Target[];
}

export interface ToolInput {
  spec: ToolSpecInput;
  handler?: ToolHandler;
}

/** A tool whose definition normalise() already checked, with its definitionDigest (an import does both on a worker thread). */
export interface CheckedToolInput {
  spec: ToolSpec;
  digest: string;
  handler?: ToolHandler;
}

/**
 * The tool registry: definitions in the database, handlers in memory. Reads (get, all, forTarget,
 * count) come from an in-memory copy; list reads a page of SQLite rows (a registry opened on
 * another store has its rows' async page instead). Writes are async: each writes its rows in one transaction,
 * then changes the copy and tells listeners, only once that committed; a failed write changes
 * neither. Another console instance's writes reach the copy through `reload`.
 */
export class ToolRegistry {
  private readonly handlers = new Map<string, ToolHandler>();
  private readonly binders = new Map<string, HandlerBinder>();
  private cache: Map<string, RegisteredTool> | undefined;
  /** forTarget's answers, until the copy changes. */
  private readonly byTarget = new Map<Target, readonly RegisteredTool[]>();
  private readonly listeners = new Set<(names: string[], how?: ChangeOrigin) => void>();
  private readonly rows: ToolRowStore;
  /** While reloads run: the write (numbered from 1) that last changed each name in the copy; reload leaves those alone. */
  private readonly written = new Map<string, number>();
  private writes = 0;
  private reloads = 0;

  /**
   * A registry over a SQLite database (its rows are read on first use, synchronously) or over the
   * rows `open` read from any store.
   */
  constructor(source: Db | ToolRowStore, rows?: ToolRow[]) {
    this.rows = isRowStore(source) ? source : new ToolRows(source);
    if (rows) this.cache = new Map(rows.map((row) => [row.name, fromRow(row)]));
  }

  /** A registry over `rows` (either dialect), with every stored tool read. */
  static async open(rows: ToolRowStore): Promise<ToolRegistry> {
    return new ToolRegistry(rows, await rows.all());
  }

  /** Register one tool. Rejects with DuplicateTool or ToolDefinitionError; nothing is written then. */
  async add(spec: ToolSpecInput, handler?: ToolHandler): Promise<RegisteredTool> {
    return (await this.addMany([{ spec, handler }]))[0]!;
  }

  /** Register several tools, all or nothing. Rejects with DuplicateTool or ToolDefinitionError. */
  async addMany(inputs: ToolInput[]): Promise<RegisteredTool[]> {
    const prepared = inputs.map((input) => normalise(input.spec));
    this.assertNewNames(prepared);
    const now = Date.now();
    const rows = prepared.map((spec) => toRow(spec, now));
    await this.rows.insertMany(rows).catch(duplicateOf);
    return this.admit(rows.map(fromRow), inputs);
  }

  /**
   * Register the tools of the source `sourceId`, created with status "importing", all or nothing,
   * and mark the source "ok" (ToolRowStore.insertImported): the rows are written without holding
   * the event loop for the whole write, and reach this copy and the listeners once they are all
   * stored. Rejects with DuplicateTool; no row of them is left then.
   */
  async importSource(sourceId: string, inputs: CheckedToolInput[]): Promise<RegisteredTool[]> {
    this.assertNewNames(inputs.map(({ spec }) => spec));
    const now = Date.now();
    // Thousands of rows and tools are made a turn's budget at a time, before the write: once the
    // rows are stored, the tools reach this copy and the listeners within the same turn.
    const rows = await mapInTurns(inputs, ({ spec, digest }) => toRow({ ...spec, sourceId }, now, digest));
    const tools = await mapInTurns(rows, fromRow);
    await this.rows.insertImported(sourceId, rows).catch(duplicateOf);
    return this.admit(tools, inputs);
  }

  /** Throws DuplicateTool for a name given twice or registered already. */
  private assertNewNames(specs: ReadonlyArray<{ name: string }>): void {
    const names = new Set<string>();
    const cache = this.getCached();
    for (const { name } of specs) {
      if (names.has(name) || cache.has(name)) throw new DuplicateTool(name);
      names.add(name);
    }
  }

  /** Put committed new tools in the copy with their handlers (by position in `inputs`), and tell listeners. */
  private admit(added: RegisteredTool[], inputs: ReadonlyArray<{ handler?: ToolHandler }>): RegisteredTool[] {
    this.cacheTools(added);
    added.forEach((tool, i) => {
      const handler = inputs[i]!.handler;
      if (handler) this.handlers.set(tool.name, handler);
    });
    this.emit(added.map((t) => t.name));
    return added;
  }

  /**
   * Insert or update tools the console ships (built-ins), keeping what operators set
   * (enabled, approval policy, timeout, retries, targets). Instances starting at once on one
   * database may both call it.
   */
  upsertBuiltins(inputs: Array<{ spec: ToolSpecInput; handler: ToolHandler }>): Promise<void> {
    const updated: string[] = [];
    const apply = (stored: ToolRow[]) => {
      this.cacheTools(stored.map(fromRow));
      for (const input of inputs) this.handlers.set(input.spec.name, input.handler);
      if (updated.length) this.emit(updated);
    };
    const rows: ToolRow[] = [];
    try {
      const now = Date.now();
      const cache = this.getCached();
      for (const input of inputs) {
        const spec = normalise(input.spec);
        const existing = cache.get(spec.name);
        if (existing && shipped(existing) === shipped(spec)) continue;
        rows.push(toRow(spec, now));
        if (existing) updated.push(spec.name);
      }
      // On SQLite the built-ins are written and in the copy within this call, as before writes were
      // async: services seed them at start-up and serve calls without waiting.
      if (this.rows instanceof ToolRows) {
        apply(this.rows.upsertDefinitionsNow(rows));
        return Promise.resolve();
      }
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.rows.upsertDefinitions(rows).then(apply);
  }

  /**
   * Read `names` (every tool when absent) from the database again, after another instance changed
   * them: the copy takes what is stored, and listeners hear the names that actually changed. A
   * tool this registry wrote while the rows were read keeps what that write left. Resolves with the
   * names that changed.
   */
  async reload(names?: string[]): Promise<string[]> {
    const from = this.writes;
    this.reloads++;
    try {
      const rows = names ? await this.rows.byNames(names) : await this.rows.all();
      const cache = this.getCached();
      const stored = new Map(rows.map((row) => [row.name, fromRow(row)]));
      const changed: string[] = [];
      for (const name of new Set(names ?? [...cache.keys(), ...stored.keys()])) {
        if ((this.written.get(name) ?? 0) > from) continue;
        const before = cache.get(name);
        const after = stored.get(name);
        if (!after) {
          if (!before) continue;
          cache.delete(name);
          this.handlers.delete(name);
        } else if (before && canonicalJson(before) === canonicalJson(after)) {
          continue;
        } else {
          cache.set(name, after);
          // An imported tool's handler is rebuilt from its new binding; a built-in keeps its own.
          if (before && before.digest !== after.digest && this.binders.has(after.kind)) this.handlers.delete(name);
        }
        changed.push(name);
      }
      if (changed.length) {
        this.byTarget.clear();
        this.emit(changed, { reloaded: true });
      }
      return changed;
    } finally {
      if (--this.reloads === 0) this.written.clear();
    }
  }

  /** The tool with this name, or undefined. */
  get(name: string): RegisteredTool | undefined {
    return this.getCached().get(name);
  }

  /** The function that runs the tool, or undefined when none is bound in this process. */
  handlerFor(tool: RegisteredTool): ToolHandler | undefined {
    let handler = this.handlers.get(tool.name);
    if (!handler) {
      handler = this.binders.get(tool.kind)?.(tool);
      if (handler) this.handlers.set(tool.name, handler);
    }
    return handler;
  }

  /** Bind (or replace) the handler of a registered tool. */
  bindHandler(name: string, handler: ToolHandler): void {
    if (!this.get(name)) throw new ToolUsageError(`No tool named "${name}" is registered`);
    this.handlers.set(name, handler);
  }

  /** Rebuild handlers of tools of `kind` on demand (importers register one per kind). */
  registerBinder(kind: string, binder: HandlerBinder): void {
    this.binders.set(kind, binder);
  }

  /** A page of tools in name order, filtered, read from the rows (either dialect). Rejects with InvalidCursor. */
  async page(filter: ToolListFilter = {}): Promise<ToolPage> {
    const page = await this.rows.page(filter);
    return { items: page.items.map(fromRow), total: page.total, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
  }

  /** A page of tools in name order, filtered, read from SQLite at once (page() on any store). Throws InvalidCursor. */
  list(filter: ToolListFilter = {}): ToolPage {
    if (!(this.rows instanceof ToolRows)) throw new Error("Listing tools is served by SQLite only");
    const page = this.rows.pageNow(filter);
    return { items: page.items.map(fromRow), total: page.total, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
  }

  /**
   * Every enabled tool exported to `target`, in name order. The same array until the registry
   * changes (every agent run asks for it, and a registry of thousands of tools takes milliseconds
   * to filter and sort), so callers may key caches on it and must not change it.
   */
  forTarget(target: Target): readonly RegisteredTool[] {
    let tools = this.byTarget.get(target);
    if (!tools) {
      tools = Object.freeze([...this.getCached().values()].filter((t) => t.enabled && t.policy.targets.includes(target)).sort(byName));
      this.byTarget.set(target, tools);
    }
    return tools;
  }

  /** Every registered tool, in name order (from memory). */
  all(): RegisteredTool[] {
    return [...this.getCached().values()].sort(byName);
  }

  count(): number {
    return this.getCached().size;
  }

  /** Remove a tool; resolves with whether it existed. */
  async remove(name: string): Promise<boolean> {
    const removed = await this.rows.delete(name);
    this.forget([name]);
    if (removed) this.emit([name]);
    return removed;
  }

  /**
   * Replace a source's tools with `inputs` (a refresh): the old ones go, the new ones come, and a
   * tool that keeps its name keeps what operators set on it. All or nothing, in one transaction.
   * Definitions already checked (with their digest) are not checked again. Rejects as addMany does.
   */
  async replaceSource(sourceId: string, inputs: Array<ToolInput | CheckedToolInput>): Promise<RegisteredTool[]> {
    const prepared = inputs.map((input) => ("digest" in input ? { spec: input.spec, digest: input.digest } : checked(input.spec)));
    const names = new Set<string>();
    for (const { spec } of prepared) {
      const existing = this.getCached().get(spec.name);
      if (names.has(spec.name) || (existing && existing.sourceId !== sourceId)) throw new DuplicateTool(spec.name);
      names.add(spec.name);
    }
    const now = Date.now();
    const { removed, rows } = await this.rows
      .replaceSource(
        sourceId,
        prepared.map(({ spec, digest }) => toRow(spec, now, digest)),
      )
      .catch(duplicateOf);
    this.forget(removed);
    const added = rows.map(fromRow);
    this.cacheTools(added);
    added.forEach((tool, i) => {
      const handler = inputs[i]!.handler;
      if (handler) this.handlers.set(tool.name, handler);
    });
    const changed = new Set([...removed, ...added.map((tool) => tool.name)]);
    if (changed.size) this.emit([...changed]);
    return added;
  }

  /** Remove every tool of a source (before a refresh re-imports them); resolves with how many went. */
  async removeSource(sourceId: string): Promise<number> {
    const names = await this.rows.deleteBySource(sourceId);
    this.forget([...names, ...[...this.getCached().values()].filter((t) => t.sourceId === sourceId).map((t) => t.name)]);
    if (names.length) this.emit(names);
    return names.length;
  }

  async setEnabled(name: string, enabled: boolean): Promise<RegisteredTool> {
    return this.update(name, { enabled });
  }

  /** Change what operators control on a tool, with no audit row (restoring settings, tests). Rejects with ToolUsageError for an unknown tool. */
  async update(name: string, settings: ToolSettings): Promise<RegisteredTool> {
    return this.writeSettings(name, settings);
  }

  /**
   * An operator's change of a tool's settings: written with a "settings_changed" row of its audit
   * trail (before and after), in one transaction. Rejects with ToolUsageError for an unknown tool.
   */
  async changeSettings(name: string, settings: ToolSettings, actor: string): Promise<RegisteredTool> {
    return this.writeSettings(name, settings, actor);
  }

  private async writeSettings(name: string, settings: ToolSettings, actor?: string): Promise<RegisteredTool> {
    if (!this.get(name)) throw new ToolUsageError(`No tool named "${name}" is registered`);
    const update = await this.rows.updateSettings(
      name,
      {
        enabled: settings.enabled,
        approval: settings.approval,
        timeoutMs: settings.timeoutMs,
        retries: settings.retries,
        targets: settings.targets && [...new Set(settings.targets)],
        updatedAt: Date.now(),
      },
      actor,
    );
    if (!update) {
      this.forget([name]);
      throw new ToolUsageError(`No tool named "${name}" is registered`);
    }
    const next = fromRow(update.after);
    this.cacheTools([next]);
    this.emit([name]);
    return next;
  }

  /**
   * Called with the names of tools added, changed or removed, and `{ reloaded: true }` when the
   * change was read from the rows by reload() (another instance made it). Returns an unsubscribe function.
   */
  onChange(listener: (names: string[], how?: ChangeOrigin) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(names: string[], how?: ChangeOrigin): void {
    for (const listener of this.listeners) {
      try {
        listener(names, how);
      } catch {
        // A listener's failure must not undo a committed change.
      }
    }
  }

  private getCached(): Map<string, RegisteredTool> {
    if (!this.cache) {
      if (!(this.rows instanceof ToolRows)) throw new Error("A registry over another store than SQLite is made with ToolRegistry.open");
      this.cache = new Map(this.rows.allNow().map((row) => [row.name, fromRow(row)]));
    }
    return this.cache;
  }

  /** Put committed tools in the copy. */
  private cacheTools(tools: RegisteredTool[]): void {
    const cache = this.getCached();
    this.byTarget.clear();
    const write = ++this.writes;
    for (const tool of tools) {
      cache.set(tool.name, tool);
      if (this.reloads) this.written.set(tool.name, write);
    }
  }

  /** Take committed removals out of the copy, with their handlers. */
  private forget(names: string[]): void {
    const cache = this.getCached();
    this.byTarget.clear();
    const write = ++this.writes;
    for (const name of names) {
      cache.delete(name);
      this.handlers.delete(name);
      if (this.reloads) this.written.set(name, write);
    }
  }
}

function isRowStore(value: Db | ToolRowStore): value is ToolRowStore {
  return typeof (value as Partial<ToolRowStore>).upsertDefinitions === "function";
}

/** A stored name met by an insert is a duplicate tool; anything else goes on as it is. */
function duplicateOf(error: unknown): never {
  if (error instanceof ToolNameTaken) throw new DuplicateTool(error.tool);
  throw error;
}

/** Validate a spec input and fill its defaults. Throws ToolDefinitionError. */
export function normalise(input: ToolSpecInput): ToolSpec {
  // Specs come from remote servers and documents too: a hostile value must fail, never throw.
  const parsed = parseUntrusted(ToolSpecInput, input);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    const path = issue.path.join("/");
    const label = typeof (input as { name?: unknown })?.name === "string" ? `Tool "${(input as { name: string }).name}"` : "Tool";
    throw new ToolDefinitionError(`${label}: ${path || "definition"} ${issue.message}`, path || undefined);
  }
  const spec = parsed.data;
  assertUsableSchema(spec.inputSchema, "inputSchema", spec.name);
  if (spec.outputSchema) assertUsableSchema(spec.outputSchema, "outputSchema", spec.name);
  return {
    name: spec.name,
    title: spec.title || spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema,
    policy: resolvePolicy(spec.policy),
    kind: spec.kind ?? "builtin",
    sourceId: spec.sourceId ?? null,
    binding: spec.binding ?? null,
  };
}

/** A definition checked by normalise(), with its digest. Throws ToolDefinitionError. */
function checked(input: ToolSpecInput): { spec: ToolSpec; digest: string } {
  const spec = normalise(input);
  return { spec, digest: definitionDigest(spec) };
}

/** Digest of what a model sees and what the tool may do. */
export function definitionDigest(spec: ToolSpec): string {
  return jsonDigest(definitionDigestInput(spec));
}

function definitionDigestInput(spec: ToolSpec): Record<string, unknown> {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema ?? null,
    effects: spec.policy.effects,
    binding: spec.binding ?? null,
  };
}

function toRow(spec: ToolSpec, now: number, digest = definitionDigest(spec)): ToolRow {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema ?? null,
    confirm: spec.policy.confirm,
    effects: spec.policy.effects,
    idempotent: spec.policy.idempotent,
    openWorld: spec.policy.openWorld,
    timeoutMs: spec.policy.timeoutMs,
    retries: spec.policy.retries,
    targets: spec.policy.targets,
    tags: spec.policy.tags,
    kind: spec.kind,
    sourceId: spec.sourceId ?? null,
    binding: spec.binding ?? null,
    enabled: true,
    approval: "default",
    digest,
    createdAt: now,
    updatedAt: now,
  };
}

function fromRow(row: ToolRow): RegisteredTool {
  return {
    name: row.name,
    title: row.title,
    description: row.description,
    inputSchema: row.inputSchema,
    ...(row.outputSchema && typeof row.outputSchema === "object" ? { outputSchema: row.outputSchema } : {}),
    policy: {
      confirm: row.confirm,
      effects: row.effects,
      idempotent: row.idempotent,
      openWorld: row.openWorld,
      timeoutMs: row.timeoutMs,
      retries: row.retries,
      targets: row.targets as Target[],
      tags: row.tags,
    },
    kind: row.kind,
    sourceId: row.sourceId,
    binding: row.binding,
    enabled: row.enabled,
    approval: row.approval,
    digest: row.digest,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Digest of what a release ships for a tool, settings aside. The definition digest leaves out the
 * title and policy (confirm, tags...), so comparing it alone kept a built-in's old policy forever.
 */
function shipped(spec: ToolSpec): string {
  const { timeoutMs: _t, retries: _r, targets: _tg, ...policy } = spec.policy;
  return jsonDigest({ ...definitionDigestInput(spec), title: spec.title, kind: spec.kind, sourceId: spec.sourceId ?? null, policy });
}

/** A registered tool as the definition it was added with (to add it again). */
export function specOf(tool: RegisteredTool): ToolSpecInput {
  const { policy } = tool;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    policy: {
      confirm: policy.confirm,
      effects: policy.effects,
      idempotent: policy.idempotent,
      openWorld: policy.openWorld,
      timeoutMs: policy.timeoutMs,
      retries: policy.retries,
      targets: policy.targets,
      tags: policy.tags,
    },
    kind: tool.kind,
    sourceId: tool.sourceId,
    binding: tool.binding,
  };
}

/** The operator-controlled settings of a tool, as its audit trail records them before and after a change. */
export function settingsOf(tool: RegisteredTool): Required<ToolSettings> {
  return {
    enabled: tool.enabled,
    approval: tool.approval,
    timeoutMs: tool.policy.timeoutMs,
    retries: tool.policy.retries,
    targets: [...tool.policy.targets],
  };
}

function byName(a: RegisteredTool, b: RegisteredTool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { decodeCursor, encodeCursor } from "../db/cursor";
import { tools } from "../db/schema";
import { jsonDigest } from "../json/canonical";
import { DuplicateTool, ToolDefinitionError, ToolUsageError } from "./errors";
import type { ToolHandler } from "./handler";
import { assertUsableSchema } from "./schema";
import {
  resolvePolicy,
  ToolSpecInput,
  type ApprovalPolicy,
  type Effects,
  type RegisteredTool,
  type Target,
  type ToolPolicy,
  type ToolSpec,
} from "./spec";

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

/**
 * The tool registry: definitions in SQLite, handlers in memory. Reads of a single tool come from
 * an in-memory copy kept in step with every write made through this registry.
 */
export class ToolRegistry {
  private readonly handlers = new Map<string, ToolHandler>();
  private readonly binders = new Map<string, HandlerBinder>();
  private cache: Map<string, RegisteredTool> | undefined;
  private readonly listeners = new Set<(names: string[]) => void>();

  constructor(private readonly db: Db) {}

  /** Register one tool. Throws DuplicateTool or ToolDefinitionError; nothing is written then. */
  add(spec: ToolSpecInput, handler?: ToolHandler): RegisteredTool {
    return this.addMany([{ spec, handler }])[0]!;
  }

  /** Register several tools, all or nothing. Throws DuplicateTool or ToolDefinitionError. */
  addMany(inputs: ToolInput[]): RegisteredTool[] {
    const prepared = inputs.map((input) => normalise(input.spec));
    const names = new Set<string>();
    for (const spec of prepared) {
      if (names.has(spec.name) || this.getCached().has(spec.name)) throw new DuplicateTool(spec.name);
      names.add(spec.name);
    }
    const now = Date.now();
    const rows = prepared.map((spec) => toRow(spec, now));
    this.db.transaction((tx) => {
      for (let i = 0; i < rows.length; i += 200) tx.insert(tools).values(rows.slice(i, i + 200)).run();
    });
    const added = rows.map(fromRow);
    const cache = this.getCached();
    added.forEach((tool, i) => {
      cache.set(tool.name, tool);
      const handler = inputs[i]!.handler;
      if (handler) this.handlers.set(tool.name, handler);
    });
    this.emit(added.map((t) => t.name));
    return added;
  }

  /**
   * Insert or update tools the console ships (built-ins), keeping what operators set
   * (enabled, approval policy, timeout, retries, targets).
   */
  upsertBuiltins(inputs: Array<{ spec: ToolSpecInput; handler: ToolHandler }>): void {
    const now = Date.now();
    const cache = this.getCached();
    this.db.transaction((tx) => {
      for (const input of inputs) {
        const spec = normalise(input.spec);
        const existing = cache.get(spec.name);
        const row = toRow(spec, now);
        if (!existing) {
          tx.insert(tools).values(row).run();
          cache.set(spec.name, fromRow(row));
        } else if (shipped(existing) !== shipped(spec)) {
          const { name: _name, enabled: _e, approval: _a, timeoutMs: _t, retries: _r, targets: _tg, createdAt: _c, ...update } = row;
          tx.update(tools).set(update).where(eq(tools.name, spec.name)).run();
          cache.set(spec.name, { ...existing, ...fromRow({ ...row, ...pickSettings(existing) }), createdAt: existing.createdAt });
        }
        this.handlers.set(spec.name, input.handler);
      }
    });
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

  /** A page of tools in name order, filtered. */
  list(filter: ToolListFilter = {}): ToolPage {
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    const where = conditions(filter);
    const total = this.db.select({ n: sql<number>`count(*)` }).from(tools).where(and(...where)).get()?.n ?? 0;
    if (filter.cursor) where.push(gt(tools.name, decodeCursor(filter.cursor, ["string"])[0]));
    const rows = this.db.select().from(tools).where(and(...where)).orderBy(asc(tools.name)).limit(limit + 1).all();
    const items = rows.slice(0, limit).map(fromRow);
    const last = items.at(-1);
    return rows.length > limit && last ? { items, nextCursor: encodeCursor([last.name]), total } : { items, total };
  }

  /** Every enabled tool exported to `target`, in name order. */
  forTarget(target: Target): RegisteredTool[] {
    return [...this.getCached().values()].filter((t) => t.enabled && t.policy.targets.includes(target)).sort(byName);
  }

  /** Every registered tool, in name order (from memory). */
  all(): RegisteredTool[] {
    return [...this.getCached().values()].sort(byName);
  }

  count(): number {
    return this.getCached().size;
  }

  /** Remove a tool; returns whether it existed. */
  remove(name: string): boolean {
    const removed = this.db.delete(tools).where(eq(tools.name, name)).run().changes > 0;
    this.getCached().delete(name);
    this.handlers.delete(name);
    if (removed) this.emit([name]);
    return removed;
  }

  /** Remove every tool of a source (before a refresh re-imports them). */
  removeSource(sourceId: string): number {
    const names = [...this.getCached().values()].filter((t) => t.sourceId === sourceId).map((t) => t.name);
    this.db.delete(tools).where(eq(tools.sourceId, sourceId)).run();
    for (const name of names) {
      this.getCached().delete(name);
      this.handlers.delete(name);
    }
    if (names.length) this.emit(names);
    return names.length;
  }

  setEnabled(name: string, enabled: boolean): RegisteredTool {
    return this.update(name, { enabled });
  }

  /** Change what operators control on a tool. Throws ToolUsageError for an unknown tool. */
  update(name: string, settings: ToolSettings): RegisteredTool {
    const existing = this.get(name);
    if (!existing) throw new ToolUsageError(`No tool named "${name}" is registered`);
    const policy: ToolPolicy = {
      ...existing.policy,
      ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
      ...(settings.retries !== undefined && { retries: settings.retries }),
      ...(settings.targets !== undefined && { targets: [...new Set(settings.targets)] }),
    };
    const next: RegisteredTool = {
      ...existing,
      enabled: settings.enabled ?? existing.enabled,
      approval: settings.approval ?? existing.approval,
      policy,
      updatedAt: Date.now(),
    };
    this.db
      .update(tools)
      .set({
        enabled: next.enabled,
        approval: next.approval,
        timeoutMs: policy.timeoutMs,
        retries: policy.retries,
        targets: policy.targets,
        updatedAt: next.updatedAt,
      })
      .where(eq(tools.name, name))
      .run();
    this.getCached().set(name, next);
    this.emit([name]);
    return next;
  }

  /** Called with the names of tools added, changed or removed. Returns an unsubscribe function. */
  onChange(listener: (names: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(names: string[]): void {
    for (const listener of this.listeners) listener(names);
  }

  private getCached(): Map<string, RegisteredTool> {
    if (!this.cache) this.cache = new Map(this.db.select().from(tools).all().map((row) => [row.name, fromRow(row)]));
    return this.cache;
  }
}

type ToolRow = typeof tools.$inferSelect;

/** Validate a spec input and fill its defaults. Throws ToolDefinitionError. */
export function normalise(input: ToolSpecInput): ToolSpec {
  const parsed = ToolSpecInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
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

function toRow(spec: ToolSpec, now: number): ToolRow {
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
    digest: definitionDigest(spec),
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

function pickSettings(tool: RegisteredTool): Pick<ToolRow, "enabled" | "approval" | "timeoutMs" | "retries" | "targets"> {
  return { enabled: tool.enabled, approval: tool.approval, timeoutMs: tool.policy.timeoutMs, retries: tool.policy.retries, targets: tool.policy.targets };
}

function conditions(filter: ToolListFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.target) where.push(sql`exists (select 1 from json_each(${tools.targets}) where value = ${filter.target})`);
  if (filter.tag) where.push(sql`exists (select 1 from json_each(${tools.tags}) where value = ${filter.tag})`);
  if (filter.sourceId) where.push(eq(tools.sourceId, filter.sourceId));
  if (filter.kind) where.push(eq(tools.kind, filter.kind));
  if (filter.effects) where.push(eq(tools.effects, filter.effects));
  if (filter.enabled !== undefined) where.push(eq(tools.enabled, filter.enabled));
  if (filter.needsApproval !== undefined) {
    const asks = sql`(${tools.approval} in ('always', 'once_per_thread') or (${tools.approval} = 'default' and ${tools.confirm} = 1))`;
    where.push(filter.needsApproval ? asks : sql`not ${asks}`);
  }
  for (const word of (filter.text ?? "").toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8)) {
    const pattern = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      // SQLite's LIKE already ignores ASCII case (as far as its lower() goes); calling lower() on four columns per row doubled the scan time.
      sql`(${tools.name} like ${pattern} escape '\\' or ${tools.title} like ${pattern} escape '\\' or ${tools.description} like ${pattern} escape '\\' or ${tools.tags} like ${pattern} escape '\\')`,
    );
  }
  return where;
}

function byName(a: RegisteredTool, b: RegisteredTool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

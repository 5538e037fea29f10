import type { Db } from "../db";
import { ToolRows, type ToolRow } from "../db/tools";
import { jsonDigest } from "../json/canonical";
import { parseUntrusted } from "../json/untrusted";
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
 * an in-memory copy kept in step with every write made through this registry; the copy changes
 * only after the write committed.
 */
export class ToolRegistry {
  private readonly handlers = new Map<string, ToolHandler>();
  private readonly binders = new Map<string, HandlerBinder>();
  private cache: Map<string, RegisteredTool> | undefined;
  private readonly listeners = new Set<(names: string[]) => void>();
  private readonly rows: ToolRows;

  constructor(db: Db) {
    this.rows = new ToolRows(db);
  }

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
    this.rows.insertMany(rows);
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
    const inserts: ToolRow[] = [];
    const updates: ToolRow[] = [];
    const cached: RegisteredTool[] = [];
    for (const input of inputs) {
      const spec = normalise(input.spec);
      const existing = cache.get(spec.name);
      const row = toRow(spec, now);
      if (!existing) {
        inserts.push(row);
        cached.push(fromRow(row));
      } else if (shipped(existing) !== shipped(spec)) {
        updates.push(row);
        cached.push({ ...existing, ...fromRow({ ...row, ...pickSettings(existing) }), createdAt: existing.createdAt });
      }
    }
    this.rows.upsertDefinitions(inserts, updates);
    for (const tool of cached) cache.set(tool.name, tool);
    for (const input of inputs) this.handlers.set(input.spec.name, input.handler);
    if (updates.length) this.emit(updates.map((row) => row.name));
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

  /** A page of tools in name order, filtered. Throws InvalidCursor. */
  list(filter: ToolListFilter = {}): ToolPage {
    const page = this.rows.page(filter);
    return { items: page.items.map(fromRow), total: page.total, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
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
    const removed = this.rows.delete(name);
    this.getCached().delete(name);
    this.handlers.delete(name);
    if (removed) this.emit([name]);
    return removed;
  }

  /**
   * Replace a source's tools with `inputs` (a refresh): the old ones go, the new ones come, and a
   * tool that keeps its name keeps what operators set on it. All or nothing: when the new tools
   * cannot be added, the old ones are put back with their settings (their handlers come back through
   * the binder). Throws what addMany throws.
   */
  replaceSource(sourceId: string, inputs: ToolInput[]): RegisteredTool[] {
    const old = this.all().filter((tool) => tool.sourceId === sourceId);
    this.removeSource(sourceId);
    let added: RegisteredTool[];
    try {
      added = this.addMany(inputs);
    } catch (error) {
      this.addMany(old.map((tool) => ({ spec: specOf(tool) })));
      for (const tool of old) this.update(tool.name, settingsOf(tool));
      throw error;
    }
    for (const tool of old) if (this.get(tool.name)) this.update(tool.name, settingsOf(tool));
    return added.map((tool) => this.get(tool.name) ?? tool);
  }

  /** Remove every tool of a source (before a refresh re-imports them). */
  removeSource(sourceId: string): number {
    const names = [...this.getCached().values()].filter((t) => t.sourceId === sourceId).map((t) => t.name);
    this.rows.deleteBySource(sourceId);
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

  /** Change what operators control on a tool, with no audit row (restoring settings, tests). Throws ToolUsageError for an unknown tool. */
  update(name: string, settings: ToolSettings): RegisteredTool {
    return this.writeSettings(name, settings);
  }

  /**
   * An operator's change of a tool's settings: written with a "settings_changed" row of its audit
   * trail (before and after), in one transaction. Throws ToolUsageError for an unknown tool.
   */
  changeSettings(name: string, settings: ToolSettings, actor: string): RegisteredTool {
    return this.writeSettings(name, settings, actor);
  }

  private writeSettings(name: string, settings: ToolSettings, actor?: string): RegisteredTool {
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
    const audit = actor
      ? { type: "settings_changed" as const, actor, data: { before: settingsOf(existing), after: settingsOf(next) } }
      : undefined;
    this.rows.updateSettings(
      name,
      {
        enabled: next.enabled,
        approval: next.approval,
        timeoutMs: policy.timeoutMs,
        retries: policy.retries,
        targets: policy.targets,
        updatedAt: next.updatedAt,
      },
      audit,
    );
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
    for (const listener of this.listeners) {
      try {
        listener(names);
      } catch {
        // A listener's failure must not undo a committed change.
      }
    }
  }

  private getCached(): Map<string, RegisteredTool> {
    if (!this.cache) this.cache = new Map(this.rows.all().map((row) => [row.name, fromRow(row)]));
    return this.cache;
  }
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
  return {
    enabled: tool.enabled,
    approval: tool.approval,
    timeoutMs: tool.policy.timeoutMs,
    retries: tool.policy.retries,
    targets: tool.policy.targets,
  };
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

import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getCheckpointId,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import type { AgentStates } from "../../../db/agent-states";

/** Checkpoints kept per thread and namespace after a run; older ones (and their writes) are pruned. */
export const DEFAULT_KEPT_CHECKPOINTS = 16;

/** The configurable key that names the AG-UI run writing a checkpoint (recorded on its row). */
export const RUN_ID_KEY = "agui_run_id";

/** A serialised value: JSON as text, anything else (bytes) as base64. */
interface Stored {
  type: string;
  text?: string;
  base64?: string;
}

interface StoredCheckpoint {
  checkpoint: Stored;
  metadata: Stored;
  parentId?: string;
}

interface StoredWrite {
  taskId: string;
  channel: string;
  value: Stored;
  taskPath: string;
  idx: number;
}

const CHECKPOINT = "checkpoint/";
const WRITE = "write/";

/**
 * A LangGraph checkpoint saver over the console's agent_states table, so a paused graph resumes
 * after a restart. Rows belong to one agent (its name); the LangGraph thread id is the AG-UI thread
 * id. Keys: `checkpoint/<ns>/<id>` and `write/<ns>/<id>/<task>/<idx>`, with the namespace
 * URI-encoded so that it never contains the separator. Semantics follow LangGraph's MemorySaver:
 * the latest checkpoint of a namespace is the greatest id (ids are time-ordered), and a write
 * stored once under the same task and index is not replaced (special writes such as errors are).
 */
export class AgentStatesSaver extends BaseCheckpointSaver {
  constructor(
    private readonly states: AgentStates,
    private readonly agent: string,
    serde?: SerializerProtocol,
  ) {
    super(serde);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadOf(config);
    if (threadId === undefined) return undefined;
    const ns = namespaceOf(config);
    const wanted = getCheckpointId(config);
    const row = wanted
      ? await this.states.get(this.agent, threadId, checkpointKey(ns, wanted))
      : (await this.states.list(this.agent, threadId, checkpointPrefix(ns))).at(-1);
    if (!row) return undefined;
    const id = row.key.slice(checkpointPrefix(ns).length);
    return this.tuple(threadId, ns, id, row.value as StoredCheckpoint);
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const threadId = threadOf(config);
    // Every row belongs to a thread: a listing across threads is not something the console does.
    if (threadId === undefined) return;
    const { before, filter } = options;
    let limit = options.limit;
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const onlyId = getCheckpointId(config);
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    const rows = (await this.states.list(this.agent, threadId, ns === undefined ? CHECKPOINT : checkpointPrefix(ns))).reverse();
    for (const row of rows) {
      const [rowNs, id] = splitCheckpointKey(row.key);
      if (onlyId && id !== onlyId) continue;
      if (beforeId && id >= beforeId) continue;
      const stored = row.value as StoredCheckpoint;
      if (filter) {
        const metadata = (await this.load(stored.metadata)) as Record<string, unknown>;
        if (!Object.entries(filter).every(([key, value]) => metadata[key] === value)) continue;
      }
      if (limit !== undefined) {
        if (limit <= 0) break;
        limit -= 1;
      }
      yield await this.tuple(threadId, rowNs, id, stored);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _versions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadOf(config);
    if (threadId === undefined) throw new Error("A LangGraph checkpoint needs configurable.thread_id");
    const ns = namespaceOf(config);
    const [[checkpointType, checkpointBytes], [metadataType, metadataBytes]] = await Promise.all([
      this.serde.dumpsTyped(checkpoint),
      this.serde.dumpsTyped(metadata),
    ]);
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    const value: StoredCheckpoint = {
      checkpoint: store(checkpointType, checkpointBytes),
      metadata: store(metadataType, metadataBytes),
      ...(parentId ? { parentId } : {}),
    };
    await this.states.put(this.agent, threadId, checkpointKey(ns, checkpoint.id), runOf(config), value);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadOf(config);
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (threadId === undefined || checkpointId === undefined)
      throw new Error("LangGraph writes need configurable.thread_id and checkpoint_id");
    const ns = namespaceOf(config);
    const serialised = await Promise.all(writes.map(([, value]) => this.serde.dumpsTyped(value)));
    for (const [index, [channel]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? index;
      const key = `${writePrefix(ns, checkpointId)}${encodeURIComponent(taskId)}/${idx}`;
      // A regular write is stored once (a task re-run after a restart writes the same again).
      if (idx >= 0 && (await this.states.get(this.agent, threadId, key))) continue;
      const [type, bytes] = serialised[index]!;
      const value: StoredWrite = { taskId, channel, value: store(type, bytes), taskPath: taskPath ?? "", idx };
      await this.states.put(this.agent, threadId, key, runOf(config), value);
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.states.delete(this.agent, threadId, CHECKPOINT);
    await this.states.delete(this.agent, threadId, WRITE);
  }

  /**
   * Keep the newest `keep` checkpoints of each namespace of a thread and the writes that belong to
   * them; delete the rest. Returns how many rows went. A graph only ever reads its latest
   * checkpoint (and, for delta channels, the parents a checkpoint names), so a short history is
   * enough; without this the table would grow with every step of every run.
   */
  async prune(threadId: string, keep = DEFAULT_KEPT_CHECKPOINTS): Promise<number> {
    const byNamespace = new Map<string, string[]>();
    for (const row of await this.states.list(this.agent, threadId, CHECKPOINT)) {
      const [ns, id] = splitCheckpointKey(row.key);
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), id]);
    }
    let removed = 0;
    for (const [ns, ids] of byNamespace)
      for (const id of ids.slice(0, Math.max(0, ids.length - keep))) {
        removed += await this.states.delete(this.agent, threadId, checkpointKey(ns, id));
        removed += await this.states.delete(this.agent, threadId, writePrefix(ns, id));
      }
    return removed;
  }

  private async tuple(threadId: string, ns: string, id: string, stored: StoredCheckpoint): Promise<CheckpointTuple> {
    const writes = (await this.states.list(this.agent, threadId, writePrefix(ns, id)))
      .map((row) => row.value as StoredWrite)
      .sort((a, b) => compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)));
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      writes.map(async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await this.load(w.value)]),
    );
    const [checkpoint, metadata] = await Promise.all([this.load(stored.checkpoint), this.load(stored.metadata)]);
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id } },
      checkpoint: checkpoint as Checkpoint,
      metadata: metadata as CheckpointMetadata,
      pendingWrites,
      ...(stored.parentId
        ? { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: stored.parentId } } }
        : {}),
    };
  }

  private load(stored: Stored): Promise<unknown> {
    const data = stored.text ?? Buffer.from(stored.base64 ?? "", "base64");
    return this.serde.loadsTyped(stored.type, data);
  }
}

function store(type: string, bytes: Uint8Array | string): Stored {
  if (typeof bytes === "string") return { type, text: bytes };
  if (type === "json") return { type, text: Buffer.from(bytes).toString("utf8") };
  return { type, base64: Buffer.from(bytes).toString("base64") };
}

function threadOf(config: RunnableConfig): string | undefined {
  const threadId = config.configurable?.thread_id;
  return typeof threadId === "string" && threadId ? threadId : undefined;
}

function namespaceOf(config: RunnableConfig): string {
  const ns = config.configurable?.checkpoint_ns;
  return typeof ns === "string" ? ns : "";
}

function runOf(config: RunnableConfig): string {
  const runId = config.configurable?.[RUN_ID_KEY];
  return typeof runId === "string" ? runId : "";
}

function checkpointPrefix(ns: string): string {
  return `${CHECKPOINT}${encodeURIComponent(ns)}/`;
}

function checkpointKey(ns: string, id: string): string {
  return `${checkpointPrefix(ns)}${id}`;
}

function writePrefix(ns: string, id: string): string {
  return `${WRITE}${encodeURIComponent(ns)}/${id}/`;
}

function splitCheckpointKey(key: string): [ns: string, id: string] {
  const rest = key.slice(CHECKPOINT.length);
  const slash = rest.indexOf("/");
  return [decodeURIComponent(rest.slice(0, slash)), rest.slice(slash + 1)];
}

import { AgentCatalog, demoAgent, plainChatAgent } from "./agents";
import { registerAgentProfiles } from "./agents/agent-profiles";
import { assistantAgent } from "./agents/assistant";
import { readAssistantSettings } from "./agents/assistant-settings";
import { frameworkDemoModel } from "./agents/frameworks/demo-model";
import { langGraphDemoAgent } from "./agents/frameworks/langgraph";
import { openAIAgentsDemo } from "./agents/frameworks/openai-agents";
import { ApprovalGate, ApprovalStore, type GrantStore } from "./approvals";
import { SessionStore, TokenStore, type AccessPolicy } from "./auth";
import { loadConfig, type Config } from "./config";
import { KnownDatabases, openDatabase, type DatabaseHandle } from "./db";
import { demoTools } from "./demo/tools";
import { AgentStates } from "./db/agent-states";
import type { CallResults, CallResultStore } from "./db/call-results";
import type { SettingsStore } from "./db/settings";
import { Executor } from "./execution";
import { registerOpenApiBinder } from "./integrations/openapi/binder";
import { registerMcpBinder, type McpConnections } from "./integrations/mcp/connections";
import { startMcpImports } from "./integrations/mcp/import-mcp";
import { registerA2ABinder, type A2AConnections } from "./integrations/a2a/client-connections";
import { startA2AImports } from "./integrations/a2a/import-a2a";
import { registerAguiSources, startAguiRemote } from "./integrations/agui-remote";
import { linkInstances, type SharedCache } from "./instances";
import { postgresStorage, sqliteStorage, type Storage } from "./storage";
import { AguiBridge } from "./integrations/agui/bridge";
import { createLogger, type Logger } from "./log";
import { OutboundGuard } from "./net";
import type { RunStore } from "./db/runs";
import { SourceRows, SourceStore } from "./db/sources";
import { type ToolRegistry, validateAgainst } from "./tools";

/** Everything the console's surfaces share: one registry, one executor, one approval store. */
export interface Services {
  config: Config;
  /** Where everything is kept: SQLite (one process) or PostgreSQL (shared by every instance). */
  storage: Storage;
  logger: Logger;
  registry: ToolRegistry;
  approvals: ApprovalStore;
  /** "Approve for this thread" grants. */
  grants: GrantStore;
  executor: Executor;
  /** The recorded calls of each tool, to list, pin and run again. */
  callHistory: CallResultStore;
  sources: SourceStore;
  /** The outbound guard: what imports and tool calls may reach (OUTBOUND_ALLOW). */
  outbound: OutboundGuard;
  /** The connections to imported MCP servers, one per MCP source. */
  mcp: McpConnections;
  /** The clients of imported A2A agents, one per A2A source. */
  a2aAgents: A2AConnections;
  tokens: TokenStore;
  /** Operators signed in to the pages with a token or ADMIN_TOKEN. */
  sessions: SessionStore;
  runs: RunStore;
  agents: AgentCatalog;
  /** What an admin set in the Settings page (the assistant's model, instructions, tools, provider keys). */
  settings: SettingsStore;
  /** What framework agents keep between a paused run and its resume. */
  agentStates: AgentStates;
  bridge: AguiBridge;
  /** Who may call: the bind address, the Host names served, the tokens and sessions. */
  access: AccessPolicy;
  version: string;
  close(): void;
}

/** Services over a SQLite file (createServices), with its database and its write-behind call record. */
export type SqliteServices = Services & { database: DatabaseHandle; callHistory: CallResults };

export interface ServicesOptions {
  logger?: Logger;
  migrationsFolder?: string;
}

export const VERSION = "0.1.0";

/**
 * Open the SQLite database CONSOLE_DB (applying migrations), seed the demo tools when configured,
 * and wire the registry, approval store and executor: ready when this returns. Throws
 * DatabaseOpenError naming CONSOLE_DB. (openServices also opens PostgreSQL.)
 */
export function createServices(config: Config, options: ServicesOptions = {}): SqliteServices {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  // A database a console used before and is now missing is not silently replaced by an empty one.
  const database = openDatabase(config.CONSOLE_DB, {
    migrationsFolder: options.migrationsFolder,
    known: new KnownDatabases(config.CONSOLE_STATE_DIR),
    allowCreate: config.CONSOLE_DB_CREATE,
    onCheckpointError: (error) => logger.warn("WAL checkpoints are back on the serving connection", { error: error.message }),
  });
  const storage = sqliteStorage(database, logger);
  const services = assemble(config, logger, storage);
  // On SQLite these start-up passes write within this call (each transaction is synchronous and
  // runs before its first await), so no call or run of this process can come first; only their
  // log lines come later.
  void startUp(services, storage);
  // Remote AG-UI agents registered on /sources come back with their sources at every start (read at
  // once from SQLite, so they are served as soon as this returns).
  registerAguiSources(aguiRemoteDeps(services), new SourceRows(database.db).listNow());
  return { ...services, database, callHistory: storage.callResults };
}

/**
 * Open the console's services on the database the configuration names: PostgreSQL when
 * DATABASE_URL is set (shared with every other instance given the same URL, and tied to them
 * through the change bus), else the SQLite file CONSOLE_DB. Ready when it resolves. Throws
 * DatabaseOpenError or PostgresOpenError naming the variable.
 */
export async function openServices(config: Config, options: ServicesOptions = {}): Promise<Services> {
  if (!config.DATABASE_URL) return createServices(config, options);
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const storage = await postgresStorage(config.DATABASE_URL, logger, { migrationsFolder: options.migrationsFolder });
  const services = assemble(config, logger, storage);
  try {
    const unlink = linkInstances({
      instance: storage.instance,
      bus: storage.bus,
      approvals: services.approvals,
      caches: [registryCache(services.registry), settingsCache(services.settings)],
      logger,
    });
    await startUp(services, storage);
    await startAguiRemote(aguiRemoteDeps(services));
    const close = services.close;
    return { ...services, close: () => (unlink(), close()) };
  } catch (error) {
    services.close();
    throw error;
  }
}

/** The services over `storage`: every surface's classes, the agents, the periodic expiry of approvals. */
function assemble(config: Config, logger: Logger, storage: Storage): Services {
  const { registry, settings } = storage;
  const approvals = new ApprovalStore(storage.approvals, {
    ttlMs: config.APPROVAL_TTL_SECONDS * 1000,
    validateArgs: (name, args) => {
      const tool = registry.get(name);
      return tool ? validateAgainst(tool.inputSchema, args) : "unknown";
    },
  });
  const sources = new SourceStore(storage.sources);
  // Every connection the console opens to another machine goes through this one guard.
  const outbound = new OutboundGuard(config.OUTBOUND_ALLOW);
  registerOpenApiBinder(registry, sources, logger, outbound);
  const mcp = startMcpImports({ registry, sources, logger, outbound });
  registerMcpBinder(registry, mcp, logger);
  const a2aAgents = startA2AImports({ sources, logger, outbound });
  registerA2ABinder(registry, a2aAgents, logger);
  const { grants, callResults, runs } = storage;
  // A grant holds for the definition it was made for: a changed or removed tool revokes the others.
  // On SQLite the revocation is written within the change's call, before any later call can look.
  registry.onChange((names) => {
    grants
      .revokeStale(names.map((name) => ({ name, digest: registry.get(name)?.digest })))
      .catch((error: unknown) => logger.error("could not revoke the grants of changed tools", { tools: names.length, error }));
  });
  const executor = new Executor({ registry, approvals: new ApprovalGate(approvals, Date.now, grants), record: callResults, logger });
  const tokens = new TokenStore(storage.tokens, {
    onTouchError: (error) => logger.warn("could not note a token's use", { error }),
  });
  const streamDelayMs = config.AGENT_STREAM_DELAY_MS;
  const agentStates = new AgentStates(storage.agentStates);
  // The framework demos run on OpenAI when it is configured, else on the offline scripted server.
  const demoModel = frameworkDemoModel(config, readAssistantSettings(settings), outbound);
  // The demo agent stays the default: the console works offline, with no key.
  const agents = new AgentCatalog()
    .add(demoAgent({ streamDelayMs }))
    .add(plainChatAgent({ streamDelayMs }))
    .add(assistantAgent({ env: config, settings, outbound }))
    .add(openAIAgentsDemo({ states: agentStates, model: { ...demoModel.options, api: demoModel.api }, streamDelayMs }))
    .add(langGraphDemoAgent({ states: agentStates, model: demoModel.options }));
  // LLM agents an admin added in Settings, each served like the assistant under its own name.
  registerAgentProfiles({ agents, settings, env: config, outbound, logger });
  const bridge = new AguiBridge({ executor, approvals, grants, runs, logger });
  // Approvals past their time become expired (their interrupts cancel-only) without anyone asking.
  const sweep = storage.every("expirySweep", config.APPROVAL_SWEEP_SECONDS * 1000, () =>
    approvals.expireDue().catch((error: unknown) => logger.error("approval expiry sweep failed", { error })),
  );
  const sessions = new SessionStore(storage.sessions, tokens, config.ADMIN_TOKEN);
  const access: AccessPolicy = {
    bindHost: config.HOST,
    allowedHosts: config.ALLOWED_HOSTS,
    tokens,
    sessions,
    corsOrigins: config.CORS_ORIGINS,
  };
  return {
    config,
    storage,
    logger,
    registry,
    approvals,
    grants,
    executor,
    callHistory: callResults,
    sources,
    outbound,
    mcp,
    a2aAgents,
    tokens,
    sessions,
    runs,
    agents,
    settings,
    agentStates,
    bridge,
    access,
    version: VERSION,
    close: () => {
      void sweep.stop();
      // Stdio servers get their stdin closed (and are ended) before the database goes.
      void mcp.closeAll();
      // On SQLite this writes what waits in memory within the call, so it also works in the exit
      // handler, where no promise settles.
      storage.close();
      void outbound.close();
    },
  };
}

/**
 * What a start must do before serving: seed the demo tools, record as ended the runs an instance
 * that stopped left running, and settle the approved calls it cut off. On SQLite a previous process
 * of this console left them; on a shared PostgreSQL only runs whose instance holds no lease are
 * ended, and approved calls are not settled at start-up, since a consumed approval without an
 * outcome may belong to a call another instance is running now.
 */
async function startUp(services: Services, storage: Storage): Promise<void> {
  const { logger } = services;
  // upsertBuiltins on SQLite writes within the call: a call served right after start finds them.
  const seeding = services.config.SEED_DEMO ? services.registry.upsertBuiltins(demoTools) : Promise.resolve();
  const ending = storage.endAbandonedRuns().then(
    (ended) => {
      if (ended.length) logger.info("runs left running by a console that stopped recorded as cancelled", { runs: ended });
    },
    (error: unknown) => logger.error("could not record the runs left running by a console that stopped", { error }),
  );
  const settling =
    storage.dialect === "sqlite"
      ? services.approvals.settleInterrupted().then(
          (interrupted) => {
            if (interrupted.length)
              logger.warn("approved calls cut off by a previous stop recorded with their outcome (unknown when none was recorded)", {
                approvals: interrupted.map((a) => a.id),
              });
          },
          (error: unknown) => logger.error("could not settle the approvals of calls cut off by a previous stop", { error }),
        )
      : Promise.resolve();
  await Promise.all([seeding, ending, settling]);
}

function aguiRemoteDeps(services: Services) {
  const { sources, agents, approvals, logger, outbound } = services;
  return { sources, agents, approvals, logger, outbound };
}

/** The registry as something other instances change too. */
function registryCache(registry: ToolRegistry): SharedCache {
  return {
    kind: "registry",
    reload: async () => void (await registry.reload()),
    onLocalChange: (listener) => registry.onChange((_names, how) => how?.reloaded || listener()),
  };
}

/** The settings as something other instances change too. */
function settingsCache(settings: SettingsStore): SharedCache {
  return {
    kind: "settings",
    reload: () => settings.reload(),
    onLocalChange: (listener) => settings.onChange((_keys, how) => how?.reloaded || listener()),
  };
}

const GLOBAL_KEY = Symbol.for("agui-console.services");

/**
 * The process's services, opened on first use from the environment (PostgreSQL when DATABASE_URL
 * is set, else the SQLite file): every caller of one process gets the same ones. Route modules may
 * be bundled separately, so the promise lives on globalThis rather than in a module variable. When
 * opening fails, the next call tries again (a database that was unreachable may be back).
 */
export function getServices(): Promise<Services> {
  const holder = globalThis as unknown as Record<symbol, Promise<Services> | undefined>;
  const existing = holder[GLOBAL_KEY];
  if (existing) return existing;
  const opening = openServices(loadConfig()).then(
    (services) => {
      // Next.js exits on SIGINT and SIGTERM: run events still waiting in memory are written then.
      process.once("exit", () => services.close());
      // The console's MCP servers run from its start (in the background: nothing waits for them).
      void services.mcp
        .connectAll()
        .catch((error: unknown) => services.logger.warn("could not list the mcp sources to connect", { error }));
      return services;
    },
    (error: unknown) => {
      if (holder[GLOBAL_KEY] === opening) holder[GLOBAL_KEY] = undefined;
      throw error;
    },
  );
  holder[GLOBAL_KEY] = opening;
  return opening;
}

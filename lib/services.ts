import { AgentCatalog, demoAgent, plainChatAgent } from "./agents";
import { registerAgentProfiles } from "./agents/agent-profiles";
import { assistantAgent } from "./agents/assistant";
import { readAssistantSettings } from "./agents/assistant-settings";
import { frameworkDemoModel } from "./agents/frameworks/demo-model";
import { langGraphDemoAgent } from "./agents/frameworks/langgraph";
import { openAIAgentsDemo } from "./agents/frameworks/openai-agents";
import { ApprovalGate, ApprovalStore, SqliteGrants, type GrantStore } from "./approvals";
import { SessionStore, TokenStore, type AccessPolicy } from "./auth";
import { loadConfig, type Config } from "./config";
import { KnownDatabases, openDatabase, type DatabaseHandle } from "./db";
import { demoTools } from "./demo/tools";
import { AgentStates } from "./db/agent-states";
import { CallResults } from "./db/call-results";
import { SettingsStore } from "./db/settings";
import { Executor } from "./execution";
import { registerOpenApiBinder } from "./integrations/openapi/binder";
import { registerMcpBinder, type McpConnections } from "./integrations/mcp/connections";
import { startMcpImports } from "./integrations/mcp/import-mcp";
import { registerA2ABinder, type A2AConnections } from "./integrations/a2a/client-connections";
import { startA2AImports } from "./integrations/a2a/import-a2a";
import { registerAguiSources } from "./integrations/agui-remote";
import { AguiBridge } from "./integrations/agui/bridge";
import { createLogger, type Logger } from "./log";
import { OutboundGuard } from "./net";
import { type RunStore, SqliteRunStore } from "./db/runs";
import { SourceRows, SourceStore } from "./db/sources";
import { ToolRegistry, validateAgainst } from "./tools";

/** Everything the console's surfaces share: one registry, one executor, one approval store. */
export interface Services {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  registry: ToolRegistry;
  approvals: ApprovalStore;
  /** "Approve for this thread" grants. */
  grants: GrantStore;
  executor: Executor;
  /** The recorded calls of each tool, to list, pin and run again. */
  callHistory: CallResults;
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

export interface ServicesOptions {
  logger?: Logger;
  migrationsFolder?: string;
}

export const VERSION = "0.1.0";

/**
 * Open the database (applying migrations), seed the demo tools when configured, and wire the
 * registry, approval store and executor. Throws DatabaseOpenError naming CONSOLE_DB.
 */
export function createServices(config: Config, options: ServicesOptions = {}): Services {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  // A database a console used before and is now missing is not silently replaced by an empty one.
  const database = openDatabase(config.CONSOLE_DB, {
    migrationsFolder: options.migrationsFolder,
    known: new KnownDatabases(config.CONSOLE_STATE_DIR),
    allowCreate: config.CONSOLE_DB_CREATE,
  });
  const registry = new ToolRegistry(database.db);
  const approvals = new ApprovalStore(database.db, {
    ttlMs: config.APPROVAL_TTL_SECONDS * 1000,
    validateArgs: (name, args) => {
      const tool = registry.get(name);
      return tool ? validateAgainst(tool.inputSchema, args) : "unknown";
    },
  });
  const sources = new SourceStore(database.db);
  // Every connection the console opens to another machine goes through this one guard.
  const outbound = new OutboundGuard(config.OUTBOUND_ALLOW);
  registerOpenApiBinder(registry, sources, logger, outbound);
  const mcp = startMcpImports({ registry, sources, logger, outbound });
  registerMcpBinder(registry, mcp, logger);
  const a2aAgents = startA2AImports({ sources, logger, outbound });
  registerA2ABinder(registry, a2aAgents, logger);
  const grants: GrantStore = new SqliteGrants(database.db);
  // Call records are written a moment behind, in batches: one commit per call was the largest
  // part of a tool call's own cost (npm run bench mcp).
  const callResults = new CallResults(database.db, {
    writeBehind: true,
    onError: (error, records) => logger.error("could not record tool calls", { records, error }),
  });
  // A grant holds for the definition it was made for: a changed or removed tool revokes the others.
  // On SQLite the revocation is written within the change's call, before any later call can look.
  registry.onChange((names) => {
    grants
      .revokeStale(names.map((name) => ({ name, digest: registry.get(name)?.digest })))
      .catch((error: unknown) => logger.error("could not revoke the grants of changed tools", { tools: names.length, error }));
  });
  const executor = new Executor({ registry, approvals: new ApprovalGate(approvals, Date.now, grants), record: callResults, logger });
  if (config.SEED_DEMO) registry.upsertBuiltins(demoTools);
  const tokens = new TokenStore(database.db, {
    onTouchError: (error) => logger.warn("could not note a token's use", { error }),
  });
  const runs = new SqliteRunStore(database.db, (error, runIds) => logger.error("could not record run events", { runIds, error }));
  // On SQLite the update runs within this call (its body is synchronous up to the promise), so no
  // run of this process can start before it and be cancelled by it; only the log line comes later.
  void runs.closeAbandoned().then(
    (abandoned) => {
      if (abandoned) logger.info("runs left running by a previous process recorded as cancelled", { count: abandoned });
    },
    (error: unknown) => logger.error("could not record the runs left running by a previous process", { error }),
  );
  // Approved calls a previous process started and never finished: their outcome is unknown, not denied.
  // On SQLite the rows are settled within this call (the rows' transaction is synchronous and runs
  // before the first await), so nothing below can run a call first; only the log line comes later.
  // A start-up on PostgreSQL must await it before serving.
  void approvals.settleInterrupted().then(
    (interrupted) => {
      if (interrupted.length)
        logger.warn("approved calls cut off by a previous stop recorded with their outcome (unknown when none was recorded)", {
          approvals: interrupted.map((a) => a.id),
        });
    },
    (error: unknown) => logger.error("could not settle the approvals of calls cut off by a previous stop", { error }),
  );
  const streamDelayMs = config.AGENT_STREAM_DELAY_MS;
  const settings = new SettingsStore(database.db);
  const agentStates = new AgentStates(database.db);
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
  // Remote AG-UI agents registered on /sources come back with their sources at every start
  // (read at once from SQLite; a start-up over another row store awaits startAguiRemote).
  registerAguiSources({ sources, agents, approvals, logger, outbound }, new SourceRows(database.db).listNow());
  const bridge = new AguiBridge({ executor, approvals, grants, runs, logger });
  // Approvals past their time become expired (their interrupts cancel-only) without anyone asking.
  const sweep = setInterval(() => {
    approvals.expireDue().catch((error: unknown) => logger.error("approval expiry sweep failed", { error }));
  }, config.APPROVAL_SWEEP_SECONDS * 1000);
  sweep.unref();
  const sessions = new SessionStore(database.db, tokens, config.ADMIN_TOKEN);
  const access: AccessPolicy = {
    bindHost: config.HOST,
    allowedHosts: config.ALLOWED_HOSTS,
    tokens,
    sessions,
    corsOrigins: config.CORS_ORIGINS,
  };
  return {
    config,
    database,
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
      clearInterval(sweep);
      // SQLite writes the waiting events within the call, so this also works in the exit handler,
      // where no promise settles, and before the database closes below.
      void runs.flush();
      callResults.flush();
      // Stdio servers get their stdin closed (and are ended) before the database goes.
      void mcp.closeAll();
      database.close();
      void outbound.close();
    },
  };
}

const GLOBAL_KEY = Symbol.for("agui-console.services");

/**
 * The process's services, created on first use from the environment. Route modules may be bundled
 * separately, so the instance lives on globalThis rather than in a module variable.
 */
export function getServices(): Services {
  const holder = globalThis as unknown as Record<symbol, Services | undefined>;
  let services = holder[GLOBAL_KEY];
  if (!services) {
    const created = createServices(loadConfig());
    holder[GLOBAL_KEY] = services = created;
    // Next.js exits on SIGINT and SIGTERM: run events still waiting in memory are written then.
    process.once("exit", () => created.close());
  }
  return services;
}

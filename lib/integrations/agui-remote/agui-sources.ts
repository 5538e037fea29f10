import { z } from "zod";
import type { AgentCatalog } from "../../agents/catalog";
import type { AgentInfo } from "../../agents/agent";
import type { ApprovalStore } from "../../approvals";
import type { SourceStore, SourceSummary } from "../../db/sources";
import { parseUntrusted } from "../../json/untrusted";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { SourceNotFound } from "../../sources/errors";
import { parseSecrets, secretsRef } from "../mcp/client-target";
import { DEFAULT_REMOTE_LIMITS, remoteAguiAgent, type RemoteRunLimits } from "./remote-agent";
import { AguiEndpointUnreachable, AguiSourceOptionsError, describeFailure, httpFailure, shown } from "./remote-failure";
import { cancelSourceApprovals } from "./remote-interrupts";

/** What registering, running and removing remote AG-UI agents needs from the console's services (`Services` fits). */
export interface AguiRemoteDeps {
  sources: SourceStore;
  agents: AgentCatalog;
  approvals: ApprovalStore;
  logger: Logger;
  /** The console's guard; a source's runs go through it widened by the source's own allowance. */
  outbound: OutboundGuard;
  /** Bounds on each forwarded run (tests shorten them). */
  limits?: RemoteRunLimits;
}

export interface AguiSourceInput {
  /** The source's name; its agent is `remote:<name>`. */
  name: string;
  /** The AG-UI endpoint runs are POSTed to. */
  url: string;
  /** Headers sent with every request (Authorization...): stored as the source's secret, never listed. */
  headers?: Record<string, string>;
  description?: string;
  /** An admin's allowance of private addresses, kept with the source. */
  allow?: string[];
}

/** What a connection test found, and what it checked. */
export interface AguiTestResult {
  location: string;
  /** "listing": the endpoint's console answered its agent listing; "reachability": only an HTTP answer was checked. */
  check: "listing" | "reachability";
  /** What the test checked and found, in a sentence. */
  detail: string;
  /** The agent as the remote console lists it, when it does. */
  agent?: { name: string; description: string; model: string };
  warnings: string[];
}

/** The prefix of a remote agent's name in the catalog. */
export const REMOTE_AGENT_PREFIX = "remote:";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LISTING_BYTES = 256 * 1024;

/** The catalog name of the agent of a source named `name`. */
export function remoteAgentName(name: string): string {
  return `${REMOTE_AGENT_PREFIX}${name}`;
}

/** What a remote AG-UI source keeps in its options (never a secret). */
interface StoredOptions {
  description?: string;
  allow?: string[];
}

/**
 * Check an AG-UI endpoint without running anything (the protocol has no info call): GET the
 * agent listing of the console the URL belongs to (`…/api/agui` for `…/api/agui/<agent>`); when
 * that answers as a console's listing, say whether it lists the agent. Otherwise GET the endpoint
 * itself: any HTTP answer but 401/403 shows it is reachable with these credentials, nothing more.
 * Throws AguiEndpointUnreachable (with the reason: unreachable, refused address or credentials).
 */
export async function testAguiEndpoint(guard: OutboundGuard, input: Pick<AguiSourceInput, "url" | "headers">): Promise<AguiTestResult> {
  const url = endpointUrl(input.url);
  const headers = { ...input.headers, accept: "application/json" };
  const get = async (target: string) => {
    try {
      return await guard.fetch(target, { headers, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new AguiEndpointUnreachable(describeFailure(error, url.href).message);
    }
  };
  const agentName = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
  const listingUrl = `${url.origin}${url.pathname.split("/").slice(0, -1).join("/")}`;
  const listing = await get(listingUrl);
  refuseCredentials(listing, listingUrl);
  const agents = listing.ok ? await readListing(listing) : (await listing.body?.cancel().catch(() => {}), undefined);
  if (agents) {
    const agent = agents.find((candidate) => candidate.name === agentName);
    return {
      location: url.href,
      check: "listing",
      detail: agent
        ? `The console at ${url.origin} lists the agent "${agentName}" (GET ${shown(listingUrl)}).`
        : `The console at ${url.origin} answers its agent listing, but lists no agent "${agentName}".`,
      ...(agent && { agent }),
      warnings: agent
        ? []
        : [
            `Runs would fail: the listing names ${
              agents
                .map((a) => a.name)
                .slice(0, 10)
                .join(", ") || "no agent"
            }.`,
          ],
    };
  }
  const answer = await get(url.href);
  await answer.body?.cancel().catch(() => {});
  refuseCredentials(answer, url.href);
  return {
    location: url.href,
    check: "reachability",
    detail: `${shown(url.href)} answered GET with HTTP ${answer.status}. AG-UI has no standard info call: only that the endpoint is reachable with these credentials was checked, not that it runs an agent.`,
    warnings: answer.status === 404 ? ["The endpoint answered 404: check the URL."] : [],
  };
}

/**
 * Add a remote AG-UI agent: check the endpoint (testAguiEndpoint), then keep it as a source (its
 * headers in the secret column) and register its agent `remote:<name>`. Nothing is written when
 * the check fails. Throws AguiSourceOptionsError (a bad name, a name in use), AguiEndpointUnreachable.
 */
export async function addAguiSource(
  deps: AguiRemoteDeps,
  guard: OutboundGuard,
  input: AguiSourceInput,
): Promise<{ source: SourceSummary; agent: AgentInfo; test: AguiTestResult }> {
  checkName(deps, input.name);
  const test = await testAguiEndpoint(guard, input);
  // The name may have been taken while the endpoint answered.
  checkName(deps, input.name);
  const headers = input.headers && Object.keys(input.headers).length ? input.headers : undefined;
  const options: StoredOptions = {
    ...(input.description && { description: input.description }),
    ...(input.allow?.length && { allow: input.allow }),
  };
  const source = await deps.sources.create({
    kind: "agui",
    name: input.name,
    location: test.location,
    authRef: secretsRef(headers && { headers }),
    authSecret: headers ? JSON.stringify({ headers }) : null,
    options: options as Record<string, unknown>,
  });
  const agent = registerRemoteAgent(deps, source, test.agent?.description);
  deps.logger.info("remote AG-UI agent added", {
    source: source.id,
    agent: agent.name,
    location: shown(source.location),
    check: test.check,
  });
  return { source, agent, test };
}

/** Check the endpoint again and record the outcome as the source's status. Throws SourceNotFound, and what testAguiEndpoint throws. */
export async function refreshAguiSource(deps: AguiRemoteDeps, id: string): Promise<{ source: SourceSummary; test: AguiTestResult }> {
  const source = await deps.sources.startRefresh(id, "agui");
  if (!source) throw new SourceNotFound(id);
  try {
    const test = await testAguiEndpoint(deps.outbound.forSource(source.options), {
      url: source.location,
      headers: parseSecrets((await deps.sources.credentials(id))?.secret)?.headers,
    });
    await deps.sources.update(id, { status: "ok", statusMessage: null, lastRefreshAt: Date.now() });
    return { source: (await deps.sources.get(id))!, test };
  } catch (error) {
    if (await deps.sources.get(id))
      await deps.sources.update(id, { status: "error", statusMessage: (error as Error).message.slice(0, 1000) });
    throw error;
  }
}

/** Unregister a removed source's agent and cancel its approvals still waiting. */
export async function forgetAguiSource(deps: AguiRemoteDeps, source: Pick<SourceSummary, "id" | "name">, by: string): Promise<void> {
  deps.agents.remove(remoteAgentName(source.name));
  const cancelled = await cancelSourceApprovals(deps, source.id, by);
  deps.logger.info("remote AG-UI agent removed", { source: source.id, cancelledApprovals: cancelled });
}

/** At start-up: register the agent of every remote AG-UI source. Returns how many. */
export async function startAguiRemote(deps: AguiRemoteDeps): Promise<number> {
  return registerAguiSources(deps, await deps.sources.list());
}

/** Register the agent of every remote AG-UI source among `sources` (read already). Returns how many. */
export function registerAguiSources(deps: AguiRemoteDeps, sources: readonly SourceSummary[]): number {
  let count = 0;
  for (const source of sources) {
    if (source.kind !== "agui") continue;
    registerRemoteAgent(deps, source);
    count++;
  }
  return count;
}

/** Register (or replace) the catalog agent of a remote AG-UI source. */
export function registerRemoteAgent(deps: AguiRemoteDeps, source: SourceSummary, remoteDescription?: string): AgentInfo {
  const stored = source.options as StoredOptions;
  const id = source.id;
  const info = {
    name: remoteAgentName(source.name),
    description: stored.description ?? remoteDescription ?? `A remote AG-UI agent at ${shown(source.location)}.`,
    model: `remote AG-UI agent at ${shown(source.location)}`,
    capabilities: { tools: true, clientTools: true, approvals: true, sharedState: true, reasoning: true },
    remote: { protocol: "agui" as const, url: shown(source.location), sourceId: id },
  };
  const agent = remoteAguiAgent(
    info,
    {
      approvals: deps.approvals,
      logger: deps.logger,
      endpoint: async () => {
        // Read at each run: a removed source stops at once, a changed allowance applies to the next run.
        const current = await deps.sources.get(id);
        if (!current) return undefined;
        return {
          url: current.location,
          headers: parseSecrets((await deps.sources.credentials(id))?.secret)?.headers ?? {},
          guard: deps.outbound.forSource(current.options),
        };
      },
      report: async (failure) => {
        try {
          const current = await deps.sources.get(id);
          if (!current) return;
          if (failure) await deps.sources.update(id, { status: "error", statusMessage: failure.message.slice(0, 1000) });
          else if (current.status !== "ok") await deps.sources.update(id, { status: "ok", statusMessage: null });
        } catch (error) {
          // The run's outcome stands; only its note on the source is missing.
          deps.logger.warn("could not record a remote AG-UI source's status", { source: id, error });
        }
      },
    },
    deps.limits ?? DEFAULT_REMOTE_LIMITS,
  );
  deps.agents.add(agent);
  return agent.info;
}

function checkName(deps: AguiRemoteDeps, name: string): void {
  if (!NAME.test(name))
    throw new AguiSourceOptionsError(
      `"${name.slice(0, 80)}" cannot name a remote agent: use 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit`,
    );
  if (deps.agents.get(remoteAgentName(name)))
    throw new AguiSourceOptionsError(`An agent named ${remoteAgentName(name)} exists already; choose another name`);
}

function endpointUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AguiSourceOptionsError(`"${raw.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AguiSourceOptionsError("The endpoint URL must be http or https");
  if (url.username || url.password) throw new AguiSourceOptionsError("Put credentials in the token or headers, not in the URL");
  url.hash = "";
  return url;
}

/** 401 and 403 say the credentials are wrong, whichever request got them. */
function refuseCredentials(response: Response, target: string): void {
  if (response.status === 401 || response.status === 403) {
    void response.body?.cancel().catch(() => {});
    throw new AguiEndpointUnreachable(httpFailure(response.status, undefined, shown(target)).message);
  }
}

const Listing = z.object({
  agents: z
    .array(z.object({ name: z.string().max(200), description: z.string().max(2000).default(""), model: z.string().max(200).default("") }))
    .max(500),
});

/** The agents of a console's listing, or undefined when the answer is no such listing. */
async function readListing(response: Response): Promise<Array<{ name: string; description: string; model: string }> | undefined> {
  if (!/json/i.test(response.headers.get("content-type") ?? "")) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const text = await boundedText(response, LISTING_BYTES);
  if (text === undefined) return undefined;
  try {
    const parsed = parseUntrusted(Listing, JSON.parse(text));
    return parsed.success ? parsed.data.agents : undefined;
  } catch {
    return undefined;
  }
}

async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

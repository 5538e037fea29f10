import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import { EventType, type AGUIEvent } from "@ag-ui/core";
import type { Agent } from "../lib/agents"; import { EventQueue } from "../lib/agents/event-queue";
import { loadConfig } from "../lib/config"; import { agui } from "../lib/http/agui-routes";
import { createServices } from "../lib/services";
import { createNodeServer, listenLocal, type WebHandler } from "../lib/http/node-adapter";
function replayAgent(deltas: number): Agent { return { info: { name: "replay", description: "b", model: "none", capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false } },
  run(input) { const queue = new EventQueue<AGUIEvent>(); void (async () => { const at = Date.now();
    queue.push({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId, protocolVersion: "1.0", timestamp: at } as AGUIEvent);
    queue.push({ type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", timestamp: at } as AGUIEvent);
    for (let i = 0; i < deltas; i++) { queue.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "word ", timestamp: at } as AGUIEvent); if (i % 256 === 255) await new Promise((r) => setImmediate(r)); }
    queue.push({ type: EventType.TEXT_MESSAGE_END, messageId: "m1", timestamp: at } as AGUIEvent);
    queue.push({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: "success" }, timestamp: at } as AGUIEvent);
    queue.close(); })(); return queue; } }; }
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prof-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "b.db"), LOG_LEVEL: "silent", AGENT_STREAM_DELAY_MS: "0" }));
  services.agents.add(replayAgent(10));
  const ep = agui(services); let n = 0;
  const server = createNodeServer([{ method: "POST", path: "/api/agui/[agent]", handler: ep.run as WebHandler }]);
  const base = await listenLocal(server);
  const times: number[] = [];
  for (let r = 0; r < 600; r++) { n++;
    const s = performance.now();
    const res = await fetch(base + "/api/agui/replay", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: `t${n}`, runId: `r${n}`, protocolVersion: "1.0", messages: [{ id: "u", role: "user", content: "x" }], tools: [], context: [] }) });
    const rd = res.body!.getReader(); for (;;) { const { done } = await rd.read(); if (done) break; }
    times.push(performance.now() - s);
  }
  times.sort((a,b)=>a-b); console.log("median in-process", times[300]!.toFixed(1));
  services.close(); server.close();
})();

"use client";

import type { McpTestResult } from "@/lib/api/contracts";
import { ConnectSourceDialog } from "./connect-source-dialog";
import { EMPTY_MCP, mcpFormProblem, mcpRequestBody, type McpForm } from "./mcp-form";
import { Warnings } from "./openapi-preview";
import { hint, input, label, mono } from "./form-styles";

/**
 * The "Add MCP server" dialog: a Streamable HTTP URL (with headers or a bearer token) or, for
 * admins, a command the console runs (arguments, working directory, environment); "Test connection"
 * connects and lists the tools it would register, then the import, all or nothing.
 */
export function AddMcpDialog({ admin = false }: { admin?: boolean }) {
  return (
    <ConnectSourceDialog<McpForm, McpTestResult>
      path="/api/sources/mcp"
      empty={EMPTY_MCP}
      problem={mcpFormProblem}
      started={(form) => Boolean(form.url || form.command)}
      body={mcpRequestBody}
      admin={admin}
      text={{
        button: "Add MCP server",
        title: "Add an MCP server",
        test: "Test connection",
        testing: "Connecting and reading the server’s tools…",
        testFailed: "The connection test failed",
        importing: (result) => `Importing ${result.tools.length} tools from ${result.server.title ?? result.server.name}…`,
      }}
      fields={({ form, update, field, id, admin }) => (
        <>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Server</legend>
            <div role="radiogroup" aria-label="How the console reaches the server" className="flex flex-wrap gap-4 text-sm">
              <label className="flex items-center gap-1.5">
                <input
                  type="radio"
                  name={`${id}-transport`}
                  checked={form.transport === "http"}
                  onChange={() => update({ transport: "http" })}
                />
                Streamable HTTP URL
              </label>
              <label className="flex items-center gap-1.5">
                <input
                  type="radio"
                  name={`${id}-transport`}
                  checked={form.transport === "stdio"}
                  disabled={!admin}
                  onChange={() => update({ transport: "stdio" })}
                />
                Command (stdio)
              </label>
            </div>
            {!admin ? <p className={hint}>Only an admin can add a command: it runs a program on the console&apos;s machine.</p> : null}

            {form.transport === "http" ? (
              <>
                <div>
                  <label htmlFor={`${id}-url`} className={label}>
                    Server URL
                  </label>
                  <input type="url" placeholder="https://mcp.example.com/mcp" className={input} {...field("url")} />
                </div>
                <div>
                  <label htmlFor={`${id}-bearer`} className={label}>
                    Bearer token (optional, stored as a secret)
                  </label>
                  <input type="password" autoComplete="off" className={input} {...field("bearer")} />
                </div>
                <div className="grid gap-3 sm:grid-cols-2">
                  <div>
                    <label htmlFor={`${id}-headers`} className={label}>
                      Headers
                    </label>
                    <textarea rows={2} placeholder="X-Team: research" className={mono} {...field("headers")} />
                    <p className={hint}>One “Name: value” per line; shown in the source list.</p>
                  </div>
                  <div>
                    <label htmlFor={`${id}-secretHeaders`} className={label}>
                      Secret headers
                    </label>
                    <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
                    <p className={hint}>Stored for the connection, never shown again.</p>
                  </div>
                </div>
              </>
            ) : (
              <>
                <div>
                  <label htmlFor={`${id}-command`} className={label}>
                    Command
                  </label>
                  <input placeholder="npx" className={mono} {...field("command")} />
                  <p className={hint}>Run without a shell, with only HOME, PATH, SHELL, TERM, USER, LOGNAME and the variables below.</p>
                </div>
                <div className="grid gap-3 sm:grid-cols-2">
                  <div>
                    <label htmlFor={`${id}-args`} className={label}>
                      Arguments
                    </label>
                    <textarea rows={3} placeholder={"-y\n@modelcontextprotocol/server-everything"} className={mono} {...field("args")} />
                    <p className={hint}>One per line.</p>
                  </div>
                  <div>
                    <label htmlFor={`${id}-cwd`} className={label}>
                      Working directory (optional)
                    </label>
                    <input placeholder="/srv/mcp" className={mono} {...field("cwd")} />
                  </div>
                </div>
                <div className="grid gap-3 sm:grid-cols-2">
                  <div>
                    <label htmlFor={`${id}-env`} className={label}>
                      Environment
                    </label>
                    <textarea rows={2} placeholder="LOG_LEVEL=info" className={mono} {...field("env")} />
                    <p className={hint}>One NAME=value per line; shown in the source list.</p>
                  </div>
                  <div>
                    <label htmlFor={`${id}-secretEnv`} className={label}>
                      Secret environment
                    </label>
                    <textarea rows={2} placeholder="API_KEY=…" className={mono} {...field("secretEnv")} />
                    <p className={hint}>Stored for the process, never shown again.</p>
                  </div>
                </div>
              </>
            )}
          </fieldset>

          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold">Options</legend>
            <div>
              <label htmlFor={`${id}-name`} className={label}>
                Source name (optional)
              </label>
              <input placeholder="the server's own name" className={input} {...field("name")} />
            </div>
            <div>
              <label htmlFor={`${id}-prefix`} className={label}>
                Tool name prefix (optional)
              </label>
              <input placeholder="github_" className={input} {...field("prefix")} />
            </div>
            {admin && form.transport === "http" ? (
              <div className="sm:col-span-2">
                <label htmlFor={`${id}-allow`} className={label}>
                  Also allow these private addresses (admin)
                </label>
                <input placeholder="10.0.0.0/8, mcp.internal" className={input} {...field("allow")} />
              </div>
            ) : null}
          </fieldset>
        </>
      )}
      result={(result) => <TestResultView result={result} />}
    />
  );
}

/** What the connection test found: the server, the tools the import would register, and the warnings. */
function TestResultView({ result }: { result: McpTestResult }) {
  const asking = result.tools.filter((tool) => tool.confirm).length;
  return (
    <section aria-label="Connection test" className="space-y-2">
      <p className="text-sm">
        Connected to <strong>{result.server.title ?? result.server.name}</strong>
        {result.server.version ? ` ${result.server.version}` : ""}: {result.tools.length} {result.tools.length === 1 ? "tool" : "tools"}
        {asking ? `, ${asking} asking for approval before they run` : ""}.
      </p>
      <Warnings warnings={result.warnings} />
      <div className="max-h-72 overflow-y-auto rounded-md border border-slate-200">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Tools the import would register</caption>
          <thead className="sticky top-0 bg-slate-50 uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="px-2 py-1">
                Tool
              </th>
              <th scope="col" className="px-2 py-1">
                On the server
              </th>
              <th scope="col" className="px-2 py-1">
                Effects
              </th>
              <th scope="col" className="px-2 py-1">
                Approval
              </th>
            </tr>
          </thead>
          <tbody>
            {result.tools.map((tool) => (
              <tr key={tool.remoteName} className="border-t border-slate-100 align-top">
                <th scope="row" className="px-2 py-1 font-mono font-normal" title={tool.description}>
                  {tool.toolName}
                </th>
                <td className="px-2 py-1 font-mono">{tool.remoteName}</td>
                <td className="px-2 py-1">{tool.effects}</td>
                <td className="px-2 py-1">{tool.confirm ? "asks first" : "runs"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

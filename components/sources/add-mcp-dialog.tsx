"use client";

import type { McpTestResult } from "@/lib/api/contracts";
import { ConnectSourceDialog } from "./connect-source-dialog";
import { AllowPrivateField, Labelled } from "./labelled";
import { EMPTY_MCP, mcpFormProblem, mcpRequestBody, type McpForm } from "./mcp-form";
import { Warnings } from "./openapi-preview";
import { hint, input, mono } from "./form-styles";

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
                <Labelled htmlFor={`${id}-url`} label="Server URL">
                  <input type="url" placeholder="https://mcp.example.com/mcp" className={input} {...field("url")} />
                </Labelled>
                <Labelled htmlFor={`${id}-bearer`} label="Bearer token (optional, stored as a secret)">
                  <input type="password" autoComplete="off" className={input} {...field("bearer")} />
                </Labelled>
                <div className="grid gap-3 sm:grid-cols-2">
                  <Labelled htmlFor={`${id}-headers`} label="Headers" hint="One “Name: value” per line; shown in the source list.">
                    <textarea rows={2} placeholder="X-Team: research" className={mono} {...field("headers")} />
                  </Labelled>
                  <Labelled htmlFor={`${id}-secretHeaders`} label="Secret headers" hint="Stored for the connection, never shown again.">
                    <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
                  </Labelled>
                </div>
              </>
            ) : (
              <>
                <Labelled
                  htmlFor={`${id}-command`}
                  label="Command"
                  hint="Run without a shell, with only HOME, PATH, SHELL, TERM, USER, LOGNAME and the variables below."
                >
                  <input placeholder="npx" className={mono} {...field("command")} />
                </Labelled>
                <div className="grid gap-3 sm:grid-cols-2">
                  <Labelled htmlFor={`${id}-args`} label="Arguments" hint="One per line.">
                    <textarea rows={3} placeholder={"-y\n@modelcontextprotocol/server-everything"} className={mono} {...field("args")} />
                  </Labelled>
                  <Labelled htmlFor={`${id}-cwd`} label="Working directory (optional)">
                    <input placeholder="/srv/mcp" className={mono} {...field("cwd")} />
                  </Labelled>
                </div>
                <div className="grid gap-3 sm:grid-cols-2">
                  <Labelled htmlFor={`${id}-env`} label="Environment" hint="One NAME=value per line; shown in the source list.">
                    <textarea rows={2} placeholder="LOG_LEVEL=info" className={mono} {...field("env")} />
                  </Labelled>
                  <Labelled htmlFor={`${id}-secretEnv`} label="Secret environment" hint="Stored for the process, never shown again.">
                    <textarea rows={2} placeholder="API_KEY=…" className={mono} {...field("secretEnv")} />
                  </Labelled>
                </div>
              </>
            )}
          </fieldset>

          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold">Options</legend>
            <Labelled htmlFor={`${id}-name`} label="Source name (optional)">
              <input placeholder="the server's own name" className={input} {...field("name")} />
            </Labelled>
            <Labelled htmlFor={`${id}-prefix`} label="Tool name prefix (optional)">
              <input placeholder="github_" className={input} {...field("prefix")} />
            </Labelled>
            {admin && form.transport === "http" ? (
              <AllowPrivateField control={field("allow")} placeholder="10.0.0.0/8, mcp.internal" className="sm:col-span-2" />
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

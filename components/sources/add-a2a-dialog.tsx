"use client";

import { ConnectSourceDialog } from "./connect-source-dialog";
import { AllowPrivateField, Labelled } from "./labelled";
import { a2aFormProblem, a2aRequestBody, EMPTY_A2A, type A2AForm, type A2ATestAnswer } from "./a2a-form";
import { Warnings } from "./openapi-preview";
import { input, mono } from "./form-styles";

/**
 * The "Add A2A agent" dialog: the agent's base URL and its credential (sent to the agent's origin
 * only); "Test" reads its card and shows the tools the import would register (one per skill), then
 * the import, all or nothing.
 */
export function AddA2ADialog({ admin = false }: { admin?: boolean }) {
  return (
    <ConnectSourceDialog<A2AForm, A2ATestAnswer>
      path="/api/sources/a2a"
      empty={EMPTY_A2A}
      problem={a2aFormProblem}
      started={(form) => Boolean(form.url)}
      body={a2aRequestBody}
      admin={admin}
      text={{
        button: "Add A2A agent",
        title: "Add an A2A agent",
        test: "Test agent",
        testing: "Reading the agent’s card…",
        testFailed: "The agent test failed",
        importing: (result) => `Importing ${result.tools.length} tools from ${result.card.name}…`,
      }}
      fields={({ field, id, admin }) => (
        <>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Agent</legend>
            <Labelled
              htmlFor={`${id}-url`}
              label="Agent URL"
              hint="Its base URL: the card is read from /.well-known/agent-card.json under it (A2A 1.0 or 0.3)."
            >
              <input type="url" placeholder="https://agent.example.com" className={input} {...field("url")} />
            </Labelled>
            <Labelled htmlFor={`${id}-bearer`} label="Bearer token (optional, stored as a secret)">
              <input type="password" autoComplete="off" className={input} {...field("bearer")} />
            </Labelled>
            <Labelled
              htmlFor={`${id}-secretHeaders`}
              label="Secret headers"
              hint="One “Name: value” per line. Credentials go only to the agent's own origin, never shown again."
            >
              <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
            </Labelled>
          </fieldset>

          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold">Options</legend>
            <Labelled htmlFor={`${id}-name`} label="Source name (optional)">
              <input placeholder="the agent's own name" className={input} {...field("name")} />
            </Labelled>
            <Labelled htmlFor={`${id}-prefix`} label="Tool name prefix (optional)">
              <input placeholder="travel_" className={input} {...field("prefix")} />
            </Labelled>
            {admin ? (
              <AllowPrivateField control={field("allow")} placeholder="10.0.0.0/8, agent.internal" className="sm:col-span-2" />
            ) : null}
          </fieldset>
        </>
      )}
      result={(result) => <AgentTestView result={result} />}
    />
  );
}

/** What the test found: the card, the tools the import would register (one per skill), and the warnings. */
function AgentTestView({ result }: { result: A2ATestAnswer }) {
  const { card } = result;
  return (
    <section aria-label="Agent test" className="space-y-2">
      <p className="text-sm">
        Found <strong>{card.name}</strong>
        {card.version ? ` ${card.version}` : ""} (A2A {card.protocolVersion || "?"}): {result.tools.length}{" "}
        {result.tools.length === 1 ? "skill" : "skills"}.
      </p>
      {card.description ? <p className="text-xs text-slate-600">{card.description}</p> : null}
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
                Skill
              </th>
              <th scope="col" className="px-2 py-1">
                Arguments
              </th>
            </tr>
          </thead>
          <tbody>
            {result.tools.map((tool) => (
              <tr key={tool.skillId} className="border-t border-slate-100 align-top">
                <th scope="row" className="px-2 py-1 font-mono font-normal" title={tool.description}>
                  {tool.toolName}
                </th>
                <td className="px-2 py-1">{tool.title}</td>
                <td className="px-2 py-1">{tool.typed ? "typed (from the card)" : "a message"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

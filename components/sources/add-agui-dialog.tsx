"use client";

import { ConnectSourceDialog } from "./connect-source-dialog";
import { aguiFormProblem, aguiRequestBody, EMPTY_AGUI, type AguiAddAnswer, type AguiForm, type AguiTestAnswer } from "./agui-form";
import { Warnings } from "./openapi-preview";
import { hint, input, label, mono } from "./form-styles";

/**
 * The "Add AG-UI agent" dialog: any AG-UI endpoint becomes the agent `remote:<name>` in chat. "Test"
 * checks the endpoint without running it (the remote console's agent listing when it answers one,
 * else that it is reachable with these credentials), then "Add agent" keeps it as a source.
 */
export function AddAguiDialog({ admin = false }: { admin?: boolean }) {
  return (
    <ConnectSourceDialog<AguiForm, AguiTestAnswer>
      path="/api/sources/agui"
      empty={EMPTY_AGUI}
      problem={aguiFormProblem}
      started={(form) => Boolean(form.url || form.name)}
      body={aguiRequestBody}
      admin={admin}
      text={{
        button: "Add AG-UI agent",
        title: "Add a remote AG-UI agent",
        test: "Test endpoint",
        testing: "Checking the endpoint…",
        testFailed: "The endpoint test failed",
        importing: () => "Adding the agent…",
      }}
      add={{
        label: () => "Add agent",
        allowed: () => true,
        done: (answer) => {
          const { agent, test } = answer as AguiAddAnswer;
          return {
            message: `Added ${agent.name}: chat with it like any agent; its approvals appear in the inbox.`,
            href: `/chat/${crypto.randomUUID()}?agent=${encodeURIComponent(agent.name)}`,
            link: `Chat with ${agent.name}`,
            warnings: test.warnings,
          };
        },
      }}
      fields={({ field, id, admin }) => (
        <>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Endpoint</legend>
            <div>
              <label htmlFor={`${id}-name`} className={label}>
                Name
              </label>
              <input placeholder="peer" autoComplete="off" className={input} {...field("name")} />
              <p className={hint}>The agent is listed as remote:&lt;name&gt; in chat.</p>
            </div>
            <div>
              <label htmlFor={`${id}-url`} className={label}>
                Endpoint URL
              </label>
              <input type="url" placeholder="https://agents.example.com/api/agui/demo" className={input} {...field("url")} />
              <p className={hint}>Where runs are POSTed (AG-UI over SSE), e.g. another console&apos;s /api/agui/&lt;agent&gt;.</p>
            </div>
            <div>
              <label htmlFor={`${id}-bearer`} className={label}>
                Bearer token (optional, stored as a secret)
              </label>
              <input type="password" autoComplete="off" className={input} {...field("bearer")} />
            </div>
            <div>
              <label htmlFor={`${id}-secretHeaders`} className={label}>
                Secret headers
              </label>
              <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
              <p className={hint}>One “Name: value” per line, sent with every run, never shown again.</p>
            </div>
          </fieldset>

          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold">Options</legend>
            <div className={admin ? "" : "sm:col-span-2"}>
              <label htmlFor={`${id}-description`} className={label}>
                Description (optional)
              </label>
              <input placeholder="what the agent does" className={input} {...field("description")} />
            </div>
            {admin ? (
              <div>
                <label htmlFor={`${id}-allow`} className={label}>
                  Also allow these private addresses (admin)
                </label>
                <input placeholder="10.0.0.0/8, agents.internal" className={input} {...field("allow")} />
              </div>
            ) : null}
          </fieldset>
        </>
      )}
      result={(result) => <EndpointTestView result={result} />}
    />
  );
}

/** What the test checked and found. */
function EndpointTestView({ result }: { result: AguiTestAnswer }) {
  return (
    <section aria-label="Endpoint test" className="space-y-2">
      <p className="text-sm">{result.detail}</p>
      {result.agent ? (
        <p className="text-xs text-slate-600">
          <span className="font-mono">{result.agent.name}</span>
          {result.agent.model ? ` (${result.agent.model})` : ""}
          {result.agent.description ? `: ${result.agent.description}` : ""}
        </p>
      ) : null}
      <Warnings warnings={result.warnings} />
    </section>
  );
}

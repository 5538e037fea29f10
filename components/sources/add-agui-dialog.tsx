"use client";

import { ConnectSourceDialog } from "./connect-source-dialog";
import { AllowPrivateField, Labelled } from "./labelled";
import { aguiFormProblem, aguiRequestBody, EMPTY_AGUI, type AguiAddAnswer, type AguiForm, type AguiTestAnswer } from "./agui-form";
import { Warnings } from "./openapi-preview";
import { input, mono } from "./form-styles";

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
            <Labelled htmlFor={`${id}-name`} label="Name" hint="The agent is listed as remote:<name> in chat.">
              <input placeholder="peer" autoComplete="off" className={input} {...field("name")} />
            </Labelled>
            <Labelled
              htmlFor={`${id}-url`}
              label="Endpoint URL"
              hint="Where runs are POSTed (AG-UI over SSE), e.g. another console's /api/agui/<agent>."
            >
              <input type="url" placeholder="https://agents.example.com/api/agui/demo" className={input} {...field("url")} />
            </Labelled>
            <Labelled htmlFor={`${id}-bearer`} label="Bearer token (optional, stored as a secret)">
              <input type="password" autoComplete="off" className={input} {...field("bearer")} />
            </Labelled>
            <Labelled
              htmlFor={`${id}-secretHeaders`}
              label="Secret headers"
              hint="One “Name: value” per line, sent with every run, never shown again."
            >
              <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
            </Labelled>
          </fieldset>

          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold">Options</legend>
            <Labelled htmlFor={`${id}-description`} label="Description (optional)" className={admin ? "" : "sm:col-span-2"}>
              <input placeholder="what the agent does" className={input} {...field("description")} />
            </Labelled>
            {admin ? <AllowPrivateField control={field("allow")} placeholder="10.0.0.0/8, agents.internal" /> : null}
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

import { ScopeNotice } from "@/components/common/scope-notice";
import { ApiTokens } from "@/components/settings/api-tokens";
import { SettingsForm } from "@/components/settings/settings-form";
import { TOKEN_SCOPES, type TokenScope } from "@/lib/api/contracts";
import { settingsView } from "@/lib/api/settings";
import { tokenView } from "@/lib/api/tokens";
import { tokenNameOf } from "@/lib/auth/principal";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings" };

export default async function SettingsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const caller = await requireCaller();
  if (!caller.scopes.includes("tools")) return <ScopeNotice title="Settings" scope="tools" what="Reading the settings" />;
  const services = await getServices();
  const admin = caller.scopes.includes("admin");
  const view = settingsView(services, admin);
  const tokens = admin ? (await services.tokens.list()).map(tokenView) : [];
  // The Sources page links here with the scope its client needs (?token_scope=mcp).
  const asked = (await searchParams).token_scope;
  const suggested = TOKEN_SCOPES.find((scope): scope is TokenScope => scope === asked);
  return (
    <div className="max-w-4xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
        <p className="mt-1 text-sm text-slate-600">
          The agents’ models, instructions, step limits and tools (the built-in <code>assistant</code> and the LLM agents added here), and
          the provider keys they share. What is set here overrides the environment and applies to the next run; keys are kept on the server
          and never shown again.{" "}
          <a href="#tokens" className="text-indigo-700 underline">
            API tokens
          </a>{" "}
          are below.
        </p>
      </div>
      <SettingsForm initial={view} />
      <section id="tokens" aria-labelledby="tokens-heading" className="scroll-mt-6 space-y-4">
        <div>
          <h2 id="tokens-heading" className="text-lg font-semibold">
            API tokens
          </h2>
          <p className="text-sm text-slate-600">
            Bearer tokens for the console’s clients: an app embedding an agent (<code>agui</code>), an MCP client (<code>mcp</code>), an A2A
            agent (<code>a2a</code>), a script (<code>tools</code>, <code>approvals</code>, <code>admin</code>). The console keeps only a
            hash of each: a token is shown once, when it is made. On the console’s machine, <code>npm run token</code> does the same.
          </p>
        </div>
        {admin ? (
          <ApiTokens initial={tokens} now={Date.now()} suggested={suggested} signedInWith={tokenNameOf(caller.id)} />
        ) : (
          <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
            Seeing, making and revoking tokens needs the <code>admin</code> scope.
          </p>
        )}
      </section>
    </div>
  );
}

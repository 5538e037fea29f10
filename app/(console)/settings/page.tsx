import { ScopeNotice } from "@/components/common/scope-notice";
import { SettingsForm } from "@/components/settings/settings-form";
import { settingsView } from "@/lib/api/settings";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings" };

export default async function SettingsPage() {
  const caller = await requireCaller();
  if (!caller.scopes.includes("tools")) return <ScopeNotice title="Settings" scope="tools" what="Reading the settings" />;
  const view = settingsView(await getServices(), caller.scopes.includes("admin"));
  return (
    <div className="max-w-4xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
        <p className="mt-1 text-sm text-slate-600">
          The agents’ models, instructions, step limits and tools (the built-in <code>assistant</code> and the LLM agents added here), and
          the provider keys they share. What is set here overrides the environment and applies to the next run; keys are kept on the server
          and never shown again.
        </p>
      </div>
      <SettingsForm initial={view} />
    </div>
  );
}

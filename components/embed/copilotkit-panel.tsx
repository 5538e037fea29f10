"use client";

import dynamic from "next/dynamic";

// CopilotKit weighs about 600 KB gzipped: it is fetched only when this page renders (never part of
// another route's JavaScript), and only in the browser (its provider is not meant to prerender).
const CopilotKitChat = dynamic(() => import("./copilotkit-chat"), {
  ssr: false,
  loading: () => <p className="text-sm text-slate-500">Loading CopilotKit…</p>,
});

/** The live CopilotKit chat with one console agent, over the console's AG-UI endpoint at `endpoint`. */
export function CopilotKitPanel(props: { agent: string; endpoint: string }) {
  return <CopilotKitChat {...props} />;
}

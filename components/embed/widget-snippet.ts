// The HTML a page pastes to show the script-tag chat: the console's /embed/widget.js and one
// <agui-chat> element filled with the endpoint, the agent and an embed token.

export interface WidgetTarget {
  /** The agent's AG-UI endpoint, e.g. https://console.example.com/api/agui/demo. */
  url: string;
  agent: string;
  /** An embed token just minted; absent, a placeholder says where it goes. */
  token?: string;
}

/** An HTML attribute value in double quotes. */
const attr = (value: string) => `"${value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;")}"`;

/** The console's base URL, from an agent's endpoint URL (everything before /api/agui/). */
export function consoleBase(agentUrl: string): string {
  const at = agentUrl.lastIndexOf("/api/agui/");
  return at >= 0 ? agentUrl.slice(0, at) : agentUrl.replace(/\/+$/, "");
}

/** The two tags to paste into a page's HTML. */
export function widgetSnippet({ url, agent, token }: WidgetTarget): string {
  const base = consoleBase(url);
  return [
    `<script src=${attr(`${base}/embed/widget.js`)} defer></script>`,
    `<agui-chat endpoint=${attr(`${base}/api/agui`)} agent=${attr(agent)} token=${attr(token ?? "EMBED_TOKEN")}`,
    `  style="display:block;height:480px;max-width:420px"></agui-chat>`,
  ].join("\n");
}

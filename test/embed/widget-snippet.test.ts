import { describe, expect, it } from "vitest";
import { consoleBase, widgetSnippet } from "@/components/embed/widget-snippet";

describe("the widget snippet of the Embed page", () => {
  it("loads the console's widget.js and fills <agui-chat> with the endpoint, the agent and the token", () => {
    expect(widgetSnippet({ url: "https://console.example.com/api/agui/demo", agent: "demo", token: "aguic_abc" })).toMatchInlineSnapshot(`
      "<script src="https://console.example.com/embed/widget.js" defer></script>
      <agui-chat endpoint="https://console.example.com/api/agui" agent="demo" token="aguic_abc"
        style="display:block;height:480px;max-width:420px"></agui-chat>"
    `);
  });

  it("keeps a path prefix, says where the token goes before one is minted, and escapes attribute values", () => {
    expect(consoleBase("https://example.com/console/api/agui/a%20b")).toBe("https://example.com/console");
    const text = widgetSnippet({ url: "http://127.0.0.1:3000/api/agui/x", agent: 'a"<b&', token: undefined });
    expect(text).toContain('agent="a&quot;&lt;b&amp;"');
    expect(text).toContain('token="EMBED_TOKEN"');
  });
});

// <agui-chat>: the console's chat as a custom element for pages that are not React, bundled into
// /embed/widget.js (scripts/build-widget.mjs). It drives the same AgentState and HttpAGUIClient as
// the console's own chat and draws them with plain DOM in a shadow root, so the host page's styles
// neither reach in nor are touched. The credential is an embed token (POST /api/tokens/embed):
// scope "agui", one agent, short-lived; never an operator's token, since the page shows it to anyone.
import { AgentState } from "./agent-state";
import { HttpAGUIClient } from "./http-agui-client";
import type { AgentSnapshot, ChatMessage, OpenInterrupt, ToolCallView } from "./snapshot";
import { WIDGET_CSS } from "./agui-chat-css";
import { contentBlocksOf } from "./content-blocks";

/** The text a message shows: its string, or the text parts of its content. */
export function messageText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/** A value as indented JSON for a <pre>, or its text when it is not JSON-able. */
function prettyJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** An element with a class and text (never HTML: everything shown comes from the agent or the user). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A call's result: its JSON, or, for MCP content blocks (an imported tool's image), the blocks:
 * text, images and sounds inline, resources with their address, links named (never followed).
 */
function resultNodes(call: ToolCallView): HTMLElement[] {
  const blocks = contentBlocksOf(call.result);
  if (!blocks) return [el("pre", "result", prettyJson(call.result))];
  return blocks.map((block) => {
    switch (block.type) {
      case "text":
        return el("p", "text", block.text);
      case "image":
      case "audio": {
        if (!block.src) return el("p", "note", `${block.type === "image" ? "An image" : "A sound"} (${block.mimeType}) not shown here`);
        const media = block.type === "image" ? el("img", "media") : el("audio", "media");
        media.src = block.src;
        if (media instanceof HTMLImageElement) media.alt = `Image from ${call.name} (${block.mimeType})`;
        else media.controls = true;
        return media;
      }
      case "resource":
        return el(
          "pre",
          "result",
          block.text !== undefined ? `${block.uri}\n${block.text}` : `${block.uri} (${block.blobBytes ?? 0} bytes)`,
        );
      case "resource_link":
        return el("p", "note", `Link to ${block.name}: ${block.uri}`);
    }
  });
}

/** Defines <agui-chat> in `registry` (once). Call it in a browser. */
export function defineAguiChat(registry: CustomElementRegistry = customElements): void {
  if (registry.get("agui-chat")) return;

  class AguiChat extends HTMLElement {
    static observedAttributes = ["endpoint", "agent"];

    private readonly root: ShadowRoot;
    private readonly log: HTMLElement;
    private readonly cards: HTMLElement;
    private readonly status: HTMLElement;
    private readonly input: HTMLTextAreaElement;
    private readonly send: HTMLButtonElement;
    private state: AgentState | undefined;
    private unsubscribe: (() => void) | undefined;
    private frame = 0;
    /** The interrupts the cards were drawn from (AgentState replaces the list when it changes). */
    private shownInterrupts: readonly OpenInterrupt[] | undefined;
    /** Each message's element with what it was drawn from: redrawn only when one of those changed. */
    private readonly drawn = new Map<string, { from: readonly unknown[]; node: HTMLElement }>();

    constructor() {
      super();
      this.root = this.attachShadow({ mode: "open" });
      if ("adoptedStyleSheets" in this.root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
        // A constructed sheet, unlike a <style> element, needs no 'unsafe-inline' in the host page's CSP.
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(WIDGET_CSS);
        this.root.adoptedStyleSheets = [sheet];
      } else {
        this.root.append(el("style", undefined, WIDGET_CSS));
      }
      const frame = el("section", "chat");
      frame.setAttribute("aria-label", "Chat");
      this.log = el("div", "log");
      this.log.setAttribute("role", "log");
      this.log.setAttribute("aria-label", "Conversation");
      this.cards = el("div", "cards");
      this.status = el("p", "status");
      this.status.setAttribute("role", "status");
      const form = el("form", "composer");
      const label = el("label", "sr-only", "Message");
      label.htmlFor = "message";
      this.input = el("textarea");
      this.input.id = "message";
      this.input.rows = 2;
      this.input.placeholder = "Write a message";
      this.send = el("button", undefined, "Send");
      this.send.type = "submit";
      form.append(label, this.input, this.send);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.submit();
      });
      this.input.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && !event.shiftKey) {
          event.preventDefault();
          this.submit();
        }
      });
      frame.append(this.log, this.cards, this.status, form);
      this.root.append(frame);
    }

    attributeChangedCallback(): void {
      // Another endpoint or agent is another conversation.
      this.reset();
    }

    disconnectedCallback(): void {
      this.reset();
    }

    /** The conversation, created at the first message with the attributes then set. */
    private conversation(): AgentState {
      if (this.state) return this.state;
      const endpoint = (this.getAttribute("endpoint") ?? "").replace(/\/+$/, "");
      const agent = this.getAttribute("agent");
      const url = agent ? `${endpoint}/${encodeURIComponent(agent)}` : endpoint;
      const client = new HttpAGUIClient(url, {
        // Read at each run, so a page can put a fresh token in the attribute when one expires.
        headers: (): Record<string, string> => {
          const token = this.getAttribute("token");
          return token ? { authorization: `Bearer ${token}` } : {};
        },
      });
      const state = new AgentState({ client });
      this.unsubscribe = state.subscribe(() => this.schedule());
      this.state = state;
      return state;
    }

    private reset(): void {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      void this.state?.close();
      this.state = undefined;
      this.drawn.clear();
      this.log.replaceChildren();
      this.cards.replaceChildren();
      this.shownInterrupts = undefined;
      this.status.textContent = "";
    }

    private submit(): void {
      const text = this.input.value.trim();
      if (!text) return;
      const state = this.conversation();
      this.input.value = "";
      this.act(() => state.send(text));
    }

    /** Runs an action of the conversation; what it throws (a run in progress, open approvals) is shown, not lost. */
    private act(action: () => Promise<void>): void {
      action().catch((error: unknown) => {
        this.status.textContent = error instanceof Error ? error.message : String(error);
      });
    }

    /** Draws at most once a frame, however many events arrived. */
    private schedule(): void {
      if (this.frame) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        if (this.state) this.draw(this.state.getSnapshot());
      });
    }

    private draw(snapshot: AgentSnapshot): void {
      let previous: Element | null = null;
      for (const message of snapshot.messages) {
        if (message.role === "tool" || message.role === "system" || message.role === "developer") continue;
        const calls = (message.toolCallIds ?? []).map((id) => snapshot.toolCalls.get(id));
        const from = [message, ...calls];
        let entry = this.drawn.get(message.id);
        if (!entry || entry.from.length !== from.length || entry.from.some((item, i) => item !== from[i])) {
          const node = this.messageNode(message, calls);
          entry?.node.replaceWith(node);
          entry = { from, node };
          this.drawn.set(message.id, entry);
        }
        if (entry.node.previousElementSibling !== previous || entry.node.parentNode !== this.log) {
          if (previous) previous.after(entry.node);
          else this.log.prepend(entry.node);
        }
        previous = entry.node;
      }
      this.drawCards(snapshot.interrupts);
      const busy = snapshot.status === "running";
      this.send.disabled = busy;
      this.status.textContent = snapshot.error
        ? `Error: ${snapshot.error.message}`
        : busy
          ? "The agent is working…"
          : snapshot.status === "awaiting_input"
            ? "Waiting for your decision"
            : "";
      this.log.scrollTop = this.log.scrollHeight;
    }

    private messageNode(message: ChatMessage, calls: readonly (ToolCallView | undefined)[]): HTMLElement {
      const node = el("article", `message ${message.role}`);
      node.setAttribute("aria-label", message.role === "user" ? "You" : message.role === "reasoning" ? "Reasoning" : "Agent");
      const text = messageText(message.content);
      if (text) node.append(el("p", "text", text));
      for (const call of calls) if (call) node.append(this.toolCallNode(call));
      return node;
    }

    private toolCallNode(call: ToolCallView): HTMLElement {
      const node = el("section", `tool ${call.status}`);
      node.setAttribute("aria-label", `Tool call ${call.name}`);
      node.dataset.status = call.status;
      const head = el("header");
      head.append(el("span", "tool-name", call.name), el("span", "tool-status", call.status.replace(/_/g, " ")));
      node.append(
        head,
        el("h4", undefined, "Arguments"),
        el("pre", "args", call.args !== undefined ? prettyJson(call.args) : call.argsText),
      );
      if (call.error) node.append(el("h4", undefined, "Error"), el("pre", "error", `${call.error.kind}: ${call.error.message}`));
      else if (call.result !== undefined) node.append(el("h4", undefined, "Result"), ...resultNodes(call));
      return node;
    }

    /** One card per open interrupt without an answer: the tool, its arguments, Approve and Deny. */
    private drawCards(interrupts: readonly OpenInterrupt[]): void {
      if (interrupts === this.shownInterrupts) return;
      this.shownInterrupts = interrupts;
      this.cards.replaceChildren(
        ...interrupts
          .filter((open) => !open.answer)
          .map(({ interrupt }) => {
            const metadata = (interrupt.metadata ?? {}) as { toolName?: string; arguments?: unknown };
            const card = el("section", "card");
            const heading = el("h3", undefined, `Approval needed: ${metadata.toolName ?? "tool"}`);
            heading.id = `interrupt-${interrupt.id}`;
            card.setAttribute("aria-labelledby", heading.id);
            card.append(heading);
            if (interrupt.message) card.append(el("p", undefined, interrupt.message));
            if (metadata.arguments !== undefined) card.append(el("pre", "args", prettyJson(metadata.arguments)));
            const approve = el("button", "approve", "Approve");
            const deny = el("button", "deny", "Deny");
            approve.type = deny.type = "button";
            const decide = (approved: boolean) => () => {
              approve.disabled = deny.disabled = true;
              const state = this.state;
              if (state) this.act(() => state.resolve(interrupt.id, { approved }));
            };
            approve.addEventListener("click", decide(true));
            deny.addEventListener("click", decide(false));
            const actions = el("div", "actions");
            actions.append(approve, deny);
            card.append(actions);
            return card;
          }),
      );
    }
  }

  registry.define("agui-chat", AguiChat);
}

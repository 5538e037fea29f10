import { EventType, type AGUIEvent } from "@ag-ui/core";

type Owner = { subagentRunId?: string };

/**
 * What a forwarded stream has opened and not yet closed (text and reasoning messages, reasoning
 * spans, tool calls, steps, subagents), so the console can close them when it ends a run the
 * remote broke off, and the run's record and the chat stay well formed.
 */
export class OpenItems {
  private readonly texts = new Map<string, Owner>();
  private readonly toolCalls = new Map<string, Owner>();
  private readonly reasoningMessages = new Map<string, Owner>();
  private readonly reasoningSpans = new Map<string, Owner>();
  private readonly steps = new Map<string, Owner>();
  private readonly subagents = new Set<string>();

  track(event: AGUIEvent): void {
    const owner = ownerOf(event);
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        this.texts.set(event.messageId, owner);
        break;
      case EventType.TEXT_MESSAGE_END:
        this.texts.delete(event.messageId);
        break;
      case EventType.TOOL_CALL_START:
        this.toolCalls.set(event.toolCallId, owner);
        break;
      case EventType.TOOL_CALL_END:
        this.toolCalls.delete(event.toolCallId);
        break;
      case EventType.REASONING_MESSAGE_START:
        this.reasoningMessages.set(event.messageId, owner);
        break;
      case EventType.REASONING_MESSAGE_END:
        this.reasoningMessages.delete(event.messageId);
        break;
      case EventType.REASONING_START:
        this.reasoningSpans.set(event.messageId, owner);
        break;
      case EventType.REASONING_END:
        this.reasoningSpans.delete(event.messageId);
        break;
      case EventType.STEP_STARTED:
        this.steps.set(event.stepName, owner);
        break;
      case EventType.STEP_FINISHED:
        this.steps.delete(event.stepName);
        break;
      case EventType.SUBAGENT_STARTED:
        this.subagents.add(event.subagentRunId);
        break;
      case EventType.SUBAGENT_FINISHED:
      case EventType.SUBAGENT_ERROR:
        this.subagents.delete(event.subagentRunId);
        break;
    }
  }

  /** Whether a subagent is still open: the console does not end those for the remote. */
  get subagentOpen(): boolean {
    return this.subagents.size > 0;
  }

  /** The events that close everything still open, innermost first; forgets them. */
  close(): AGUIEvent[] {
    const events: AGUIEvent[] = [];
    const end = (items: Map<string, Owner>, make: (id: string) => AGUIEvent) => {
      for (const [id, owner] of items) events.push({ ...make(id), ...owner } as AGUIEvent);
      items.clear();
    };
    end(this.texts, (messageId) => ({ type: EventType.TEXT_MESSAGE_END, messageId }));
    end(this.toolCalls, (toolCallId) => ({ type: EventType.TOOL_CALL_END, toolCallId }));
    end(this.reasoningMessages, (messageId) => ({ type: EventType.REASONING_MESSAGE_END, messageId }));
    end(this.reasoningSpans, (messageId) => ({ type: EventType.REASONING_END, messageId }));
    end(this.steps, (stepName) => ({ type: EventType.STEP_FINISHED, stepName }));
    return events;
  }
}

function ownerOf(event: AGUIEvent): Owner {
  const id = (event as { subagentRunId?: unknown }).subagentRunId;
  return typeof id === "string" ? { subagentRunId: id } : {};
}

import { type BaseEvent, EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { runHttpRequest, transformChunks, verifyEvents } from "@ag-ui/client";
import { AgentStreamError } from "./errors";

type EventObservable = ReturnType<ReturnType<typeof verifyEvents>>;
interface PushSubscriber {
  next(event: BaseEvent): void;
  error(err: unknown): void;
  complete(): void;
}

/*
 * @ag-ui/client ships its chunk expansion and its event-order verifier as rxjs operators, and
 * lib/client may not import rxjs itself (it runs in the browser with @ag-ui/* only). The client's
 * own Observable class is reachable from any Observable it returns: a cold `runHttpRequest` never
 * calls its factory until subscribed, so this costs nothing and fetches nothing. Both operators
 * work synchronously, so pushing one event in yields its output before `push` returns.
 */
const ObservableClass = (runHttpRequest(() => Promise.reject(new Error("never subscribed"))) as object).constructor as new (
  subscribe: (subscriber: PushSubscriber) => void,
) => EventObservable;

const KNOWN_TYPES = new Set<string>(Object.values(EventType));

/**
 * Turns raw decoded frames into events an AgentClient may yield: schema-checked with
 * `@ag-ui/core/schemas` (an invalid event is skipped with a console.warn, an unknown type with a
 * console.debug), chunk events expanded and the order checked with @ag-ui/client's
 * `transformChunks` and `verifyEvents` (a violation throws AgentStreamError("protocol")).
 * One gate per stream.
 */
export class EventGate {
  private input!: PushSubscriber;
  private readonly ready: BaseEvent[] = [];
  private failure: unknown;
  private openRun = false;
  private sawTerminal = false;

  constructor(private readonly source: string) {
    const upstream = new ObservableClass((subscriber) => {
      this.input = subscriber;
    });
    verifyEvents()(transformChunks()(upstream)).subscribe({
      next: (event) => {
        this.ready.push(event);
      },
      error: (err: unknown) => {
        this.failure = err;
      },
    });
  }

  /** True once a run has ended with RUN_FINISHED or RUN_ERROR and no other run is open. */
  get complete(): boolean {
    return this.sawTerminal && !this.openRun;
  }

  /**
   * Validates one raw event; returns the events now ready to yield (zero or more). Yield them,
   * then call `throwIfBroken()`: the events before an order violation are still good.
   */
  push(raw: unknown): BaseEvent[] {
    if (this.failure !== undefined) return [];
    const event = this.validate(raw);
    if (!event) return [];
    this.input.next(event);
    return this.drain();
  }

  /** Throws AgentStreamError("protocol") once the verifier has rejected an event. */
  throwIfBroken(): void {
    if (this.failure === undefined) return;
    const message = this.failure instanceof Error ? this.failure.message : String(this.failure);
    throw new AgentStreamError("protocol", `The ${this.source} broke the AG-UI event order: ${message}`);
  }

  /**
   * Ends the input: returns what pending chunk expansions flush. Throws AgentStreamError("eof")
   * if a run is still open or none ended, AgentStreamError("protocol") after a violation.
   */
  end(): BaseEvent[] {
    this.throwIfBroken();
    this.input.complete();
    const out = this.drain();
    this.throwIfBroken();
    if (!this.complete) {
      throw new AgentStreamError("eof", `The ${this.source} stream ended before RUN_FINISHED or RUN_ERROR`);
    }
    return out;
  }

  private validate(raw: unknown): BaseEvent | undefined {
    const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
    if (typeof type !== "string" || !KNOWN_TYPES.has(type)) {
      console.debug(`[agui-client] skipped an event of unknown type from the ${this.source}`, {
        type: typeof type === "string" ? type : undefined,
      });
      return undefined;
    }
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join("/") || "/"}: ${issue.message}`);
      console.warn(`[agui-client] skipped an invalid ${type} event from the ${this.source}`, { issues });
      return undefined;
    }
    return parsed.data as BaseEvent;
  }

  private drain(): BaseEvent[] {
    const out = this.ready.splice(0);
    for (const event of out) {
      if (event.type === EventType.RUN_STARTED) this.openRun = true;
      else if (event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR) {
        this.openRun = false;
        this.sawTerminal = true;
      }
    }
    return out;
  }
}

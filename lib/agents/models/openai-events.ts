import { APIError } from "openai";
import { SseParser } from "../../client/sse-parser";

/** The longest event a streamed answer may send (a whole tool call's arguments fit many times over). */
const MAX_EVENT_CHARS = 10 * 1024 * 1024;

/**
 * The events of a streamed OpenAI answer (Chat Completions chunks, Responses events), read from
 * the raw response the SDK returns (`.asResponse()`) instead of through its `Stream`. The SDK
 * still builds the request, sends the key and turns a refusal into an APIError; only the reading
 * of the event stream is the console's. Why: the SDK's reader copies each event's bytes four times
 * and hands it through three async generators, about 9 µs of CPU per event here (a 20,000-delta
 * answer took about 220 ms of CPU to read through the driver, 58 ms this way), so the console could not
 * keep up with a local model.
 *
 * The events come in batches, one per read of the body: everything that arrived together. A
 * driver joins a batch's text deltas into one (`joinDelta`), so that a console behind its model
 * does the work of a delta (an AG-UI event, its record, a socket write) once per read instead of
 * once per token; a model streaming in real time sends one token a read and nothing changes.
 *
 * The SDK's rules are kept: each event's data is JSON; `[DONE]` ends the answer (anything after
 * it is read and dropped); an event carrying `error` is thrown as the SDK's APIError. One event
 * longer than 10 MB is an error rather than a buffer grown without end.
 */
export async function* openAIEventBatches<T>(response: Response): AsyncGenerator<T[]> {
  if (!response.body) throw new Error("The answer has no body to stream");
  const reader = response.body.getReader();
  const parser = new SseParser(MAX_EVENT_CHARS);
  let done = false;
  let ended = false;
  try {
    while (!ended) {
      const read = await reader.read();
      ended = read.done;
      const payloads = ended ? parser.end() : parser.push(read.value!);
      const batch: T[] = [];
      for (const data of payloads) {
        if (done) continue;
        if (data.startsWith("[DONE]")) {
          done = true;
          continue;
        }
        const event = JSON.parse(data) as { error?: object } | null;
        if (event?.error) {
          // What came before the error was sent before it.
          if (batch.length) yield batch;
          throw new APIError(undefined, event.error, undefined, response.headers);
        }
        batch.push(event as T);
      }
      if (batch.length) yield batch;
    }
  } finally {
    // Stopped early (an error, the caller's break): the rest of the answer is not wanted.
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

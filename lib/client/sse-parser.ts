/**
 * A small SSE parser: bytes in, one `data` payload (string) per event out.
 *
 * Why not @ag-ui/client's `parseSSEStream`: it is an rxjs Subject pipeline that errors the whole
 * stream when one frame is not JSON, while our client must skip and log such a frame and go on;
 * and it re-splits the whole buffer on every chunk. Why not `eventsource-parser`: it buffers a
 * frame of any size, and a hostile or broken server must not make the client hold unbounded text. The framing rules are the same: events end at
 * a blank line, `data:` lines are joined with "\n" (one leading space dropped), comments
 * (`: keepalive`) and the `event:`, `id:`, `retry:` fields are ignored. CR and CRLF line ends are
 * read as LF (the SSE spec allows them; AG-UI producers should send LF).
 */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  /** Where the search for the next blank line resumes, so a long frame is scanned once. */
  private scanFrom = 0;
  private pendingCR = false;

  constructor(private readonly maxFrameChars = 10 * 1024 * 1024) {}

  /** Feeds a chunk; returns the data payloads of the events it completed. Throws RangeError past the frame limit. */
  push(chunk: Uint8Array): string[] {
    return this.pushText(this.decoder.decode(chunk, { stream: true }));
  }

  /** Flushes the decoder and returns the payload of a last event left without a blank line. */
  end(): string[] {
    const out = this.pushText(this.decoder.decode());
    const rest = this.buffer;
    this.buffer = "";
    this.scanFrom = 0;
    const data = rest ? dataOf(rest) : undefined;
    if (data !== undefined) out.push(data);
    return out;
  }

  private pushText(text: string): string[] {
    if (this.pendingCR) text = `\r${text}`;
    this.pendingCR = text.endsWith("\r");
    if (this.pendingCR) text = text.slice(0, -1);
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    this.buffer += text;

    const out: string[] = [];
    let start = 0;
    let at = this.buffer.indexOf("\n\n", Math.max(0, this.scanFrom - 1));
    while (at !== -1) {
      const data = dataOf(this.buffer.slice(start, at));
      if (data !== undefined) out.push(data);
      start = at + 2;
      at = this.buffer.indexOf("\n\n", start);
    }
    if (start > 0) this.buffer = this.buffer.slice(start);
    this.scanFrom = this.buffer.length;
    if (this.buffer.length > this.maxFrameChars) {
      throw new RangeError(`An SSE event exceeded ${this.maxFrameChars} characters`);
    }
    return out;
  }
}

function dataOf(frame: string): string | undefined {
  let data: string | undefined;
  for (const line of frame.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

// A scripted model server in a process of its own (so its work does not share the bench's thread):
// every provider wire format, answered by the demo responder. Prints its URL on stdout, exits when
// its stdin closes.
import { WIRE_FORMATS, ScriptedModelServer, demoResponder } from "../../lib/demo/model-server";

void ScriptedModelServer.start({ formats: WIRE_FORMATS, responder: demoResponder() }).then((server) => {
  // The server unrefs itself: stdin keeps this process alive until the bench ends it.
  process.stdout.write(`${server.url}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
});

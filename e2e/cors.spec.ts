import http from "node:http";
import { expect, test, type Page } from "@playwright/test";
import { createToken } from "./support/tokens";

// A page served from another local origin calls the console's AG-UI endpoint with fetch and a
// bearer token. The pages listen on the console's own port but on other loopback addresses (no
// other spec's port can be in the way): playwright.config.ts lists http://127.0.0.2:PORT in
// CORS_ORIGINS; http://127.0.0.3:PORT is listed nowhere, so Chromium's preflight fails there.

/** The embedding page: a button that posts a run to the console and writes what came back. */
function embeddingPage(endpoint: string, token: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another app</title></head>
<body>
  <button type="button">Ask the console</button>
  <output aria-label="Answer" aria-live="polite"></output>
  <script>
    const output = document.querySelector("output");
    document.querySelector("button").addEventListener("click", async () => {
      output.textContent = "asking";
      try {
        const response = await fetch(${JSON.stringify(endpoint)}, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream", authorization: "Bearer " + ${JSON.stringify(token)} },
          body: JSON.stringify({
            threadId: "t-" + crypto.randomUUID(), runId: "r-" + crypto.randomUUID(),
            messages: [{ id: "m-" + crypto.randomUUID(), role: "user", content: "hello" }], tools: [], context: [],
          }),
        });
        const text = await response.text();
        output.textContent = response.status + (text.includes('"RUN_FINISHED"') ? " run finished" : " no run");
      } catch (error) {
        output.textContent = "refused (" + error.name + ")";
      }
    });
  </script>
</body></html>`;
}

/** A tiny web server on address:port serving `html` at every path. */
async function servePage(address: string, port: number, html: string): Promise<http.Server> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, address, resolve));
  return server;
}

async function ask(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole("button", { name: "Ask the console" }).click();
  await expect(page.getByRole("status", { name: "Answer" })).not.toHaveText(/^(asking)?$/);
}

let servers: http.Server[] = [];
let listed = "";
let unlisted = "";

test.beforeAll(async () => {
  const consoleUrl = new URL(test.info().project.use.baseURL!);
  const port = Number(consoleUrl.port);
  const html = embeddingPage(`${consoleUrl.origin}/api/agui/demo`, createToken(`cors-${Date.now()}`, ["agui"]));
  servers = [await servePage("127.0.0.2", port, html), await servePage("127.0.0.3", port, html)];
  listed = `http://127.0.0.2:${port}/`;
  unlisted = `http://127.0.0.3:${port}/`;
});

test.afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

test("a page on a listed origin runs an agent of the console with a bearer token", async ({ page }) => {
  await ask(page, listed);
  await expect(page.getByRole("status", { name: "Answer" })).toHaveText("200 run finished");
});

test("a page on an origin that is not listed is refused by the browser", async ({ page }) => {
  await ask(page, unlisted);
  await expect(page.getByRole("status", { name: "Answer" })).toHaveText("refused (TypeError)");
});

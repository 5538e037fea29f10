import { expect, test } from "@playwright/test";
import { EmbedPage } from "./pages/embed-page";

// A developer opens Embed, creates a token for an app, sees it once, and copies snippets filled with
// the agent's endpoint and that token; the token works on the endpoint. (test/embed/snippets.test.ts
// runs the same snippets against a real console.)

const NAME = `e2e-embed-${Date.now()}`;

test.afterAll(async ({ request }) => {
  // Other specs meet the console with no token of ours left active.
  const { tokens } = (await (await request.get("/api/tokens")).json()) as {
    tokens: Array<{ id: string; name: string; revokedAt: number | null }>;
  };
  for (const token of tokens.filter((t) => t.name === NAME && !t.revokedAt)) await request.delete(`/api/tokens/${token.id}`);
});

test("create a token on /embed: shown once, the snippets carry it and the endpoint URL, and it works", async ({
  page,
  baseURL,
  request,
}) => {
  const embed = new EmbedPage(page);
  await embed.open();
  await embed.chooseAgent("demo");
  const url = `${baseURL}/api/agui/demo`;
  await expect(embed.endpointUrl()).toHaveText(url);

  // Before a token: the snippets read it from AGUI_TOKEN.
  expect(await embed.snippet("curl")).toContain('"authorization: Bearer $AGUI_TOKEN"');

  await embed.createToken(NAME);
  await expect(embed.newToken()).toHaveText(/^aguic_[A-Za-z0-9_-]{43}$/);
  const token = (await embed.newToken().textContent())!;
  await expect(page.getByText(`Token ${NAME} created (agui)`)).toBeVisible();

  const curl = await embed.snippet("curl");
  expect(curl).toContain(`'${url}'`);
  expect(curl).toContain(`'authorization: Bearer ${token}'`);
  const node = await embed.snippet("Node (@ag-ui/client)");
  expect(node).toContain(`const url = "${url}";`);
  expect(node).toContain(token);
  const react = await embed.snippet("React (CopilotKit)");
  expect(react).toContain("@copilotkit/react-core 1.74");
  expect(react).toContain(url);

  // The same name again is refused with a clear message while the first is active.
  await embed.createToken(NAME);
  await expect(embed.tokenError()).toContainText(`An active token named "${NAME}" exists already`);

  // The token is an agui token the endpoint takes.
  const agents = await request.get("/api/agui", { headers: { authorization: `Bearer ${token}` } });
  expect(agents.status()).toBe(200);

  // Shown once: after a reload it is gone from the page, and the snippets read AGUI_TOKEN again.
  await page.reload();
  await expect(embed.newToken()).toHaveCount(0);
  expect(await embed.snippet("curl")).not.toContain(token);
  const listed = await (await request.get("/api/tokens")).text();
  expect(listed).toContain(NAME);
  expect(listed).not.toContain(token);
});

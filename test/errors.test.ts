import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DomainError, ERROR_KINDS, type ErrorKind } from "@/lib/errors";
import { MODEL_VISIBLE_KINDS } from "@/lib/execution";
import { errorAnswer } from "@/lib/http/handler";
import { errorResponse, MAX_ERROR_ISSUES, MAX_ERROR_MESSAGE } from "@/lib/http/respond";
import { createLogger } from "@/lib/log";

/** Kinds no HTTP endpoint answers with: tool results are data, and these stay inside the console. */
const NOT_HTTP_ANSWERS = new Set<string>([
  ...MODEL_VISIBLE_KINDS.filter((kind) => kind !== "tool_not_found"),
  "approval_pending",
  "response_too_large",
  "config_error",
]);

/** The README's table of codes: each row's codes and its status. */
function readmeTable(): Map<string, number> {
  const readme = fs.readFileSync(path.resolve(__dirname, "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## HTTP API"), readme.indexOf("| method and path |"));
  const table = new Map<string, number>();
  for (const row of section.matchAll(/^\| (`[^|]+`) \| (\d{3}) \|/gm)) {
    for (const code of row[1]!.matchAll(/`([a-z_]+)`/g)) table.set(code[1]!, Number(row[2]));
  }
  return table;
}

describe("one error model", () => {
  it("the README's status table is the kind table: every code a client can get, with its status", () => {
    const table = readmeTable();
    expect(table.size).toBeGreaterThan(20);
    for (const [code, status] of table) expect({ code, status }).toEqual({ code, status: ERROR_KINDS[code as ErrorKind]?.status });
    const missing = Object.keys(ERROR_KINDS).filter((kind) => !NOT_HTTP_ANSWERS.has(kind) && !table.has(kind));
    expect(missing).toEqual([]);
  });

  it("a DomainError is answered with its kind's status, its message and its issues", async () => {
    const request = new Request("http://127.0.0.1/api/x");
    const answer = errorAnswer(
      new DomainError("invalid_body", "The body does not match", { issues: [{ path: "/a", message: "is required" }] }),
      request,
      createLogger("silent"),
    );
    expect(answer.status).toBe(422);
    expect(await answer.json()).toEqual({
      error: { code: "invalid_body", message: "The body does not match", issues: [{ path: "/a", message: "is required" }] },
    });
  });

  it("anything else is a 500 that says nothing of the fault, which goes to the log", async () => {
    const lines: string[] = [];
    const answer = errorAnswer(
      new Error("SQLITE_CORRUPT: secret path /var/lib/x"),
      new Request("http://127.0.0.1/api/x"),
      createLogger("error", (line) => lines.push(line)),
    );
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(text).not.toContain("SQLITE");
    expect(JSON.parse(text)).toEqual({ error: { code: "internal_error", message: expect.stringContaining("server log") } });
    expect(lines.join("\n")).toContain("SQLITE_CORRUPT");
  });
});

describe("error answers stay small", () => {
  it("cut a long message and long issue lists, whatever the request quoted", async () => {
    const huge = "x".repeat(70_000);
    const response = errorResponse(
      404,
      "tool_not_found",
      `No tool named "${huge}"`,
      Array.from({ length: 500 }, () => ({ path: `/${huge}`, message: huge })),
    );
    const text = await response.text();
    expect(text.length).toBeLessThan(60_000);
    const body = JSON.parse(text) as { error: { message: string; issues: unknown[] } };
    expect(body.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE + 1);
    expect(body.error.message.startsWith('No tool named "xxx')).toBe(true);
    expect(body.error.issues).toHaveLength(MAX_ERROR_ISSUES);
  });
});

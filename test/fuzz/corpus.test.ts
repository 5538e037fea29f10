import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORPUS } from "./corpus";
import { ENDPOINTS, splitKey } from "./endpoints";
import { errorBodyProblem, openFuzzServices, type FuzzServices } from "./in-process-pass";
import { loadRouteExports } from "./route-files";
import { WriteJournal } from "./write-journal";

// Every request the fuzz once found answered wrongly, replayed as it was found (see corpus.ts).
describe("the fuzz corpus: minimised findings, replayed on every run", () => {
  let fuzz: FuzzServices;
  let journal: WriteJournal;
  beforeAll(() => {
    fuzz = openFuzzServices();
    journal = new WriteJournal(fuzz.services.database.sqlite);
  });
  afterAll(() => fuzz.close());

  it("names only endpoints the fuzz knows", () => {
    expect(CORPUS.map((entry) => entry.endpoint).filter((key) => !(key in ENDPOINTS))).toEqual([]);
  });

  it.each(CORPUS.map((entry) => [`${entry.endpoint} ${entry.body ?? ""}`.slice(0, 120), entry] as const))(
    "%s is answered below 500, a refusal with a JSON error body and no write",
    async (_name, entry) => {
      {
        const route = (await loadRouteExports()).find((r) => r.key === entry.endpoint)!;
        const [method, path] = splitKey(entry.endpoint);
        const url = `http://127.0.0.1:3000${path.replace(/\[(\w+)\]/g, (_, name: string) => encodeURIComponent(entry.params?.[name] ?? ""))}${entry.query ?? ""}`;
        const mark = journal.mark();
        const response = await route.handler(
          new Request(url, {
            method,
            headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...entry.headers },
            ...(entry.body !== undefined && { body: entry.body }),
          }),
          { params: Promise.resolve(entry.params ?? {}) },
        );
        const text = await response.text();
        expect(response.status, `${entry.note}\nanswered: ${text}`).toBeLessThan(500);
        if (response.status >= 400) {
          expect(errorBodyProblem(response.headers.get("content-type") ?? "", text)).toBeUndefined();
          expect(journal.writtenSince(mark)).toEqual({});
        }
      }
    },
  );
});

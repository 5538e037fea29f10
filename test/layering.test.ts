import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The folder rules of design.md, checked on every import of every source file. A rule names the
// files it applies to and what they may not import (repo-relative paths or package names).

const root = path.resolve(__dirname, "..");

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file imports, as written. */
function imports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    found.push((match[1] ?? match[2] ?? match[3] ?? match[4])!);
  }
  return found;
}

/** An import as a repo-relative path ("lib/db/runs") for local modules, or the package name as written. */
function target(file: string, spec: string): string {
  if (spec.startsWith("@/")) return spec.slice(2);
  if (spec.startsWith("."))
    return path
      .relative(root, path.resolve(path.dirname(file), spec))
      .split(path.sep)
      .join("/");
  return spec;
}

interface Rule {
  name: string;
  /** The files the rule applies to (repo-relative prefix). */
  files: string;
  /** Files under `files` the rule leaves out. */
  except?: string[];
  /** What those files may not import: repo-relative prefixes, or package-name patterns. */
  forbidden: RegExp;
}

const RULES: Rule[] = [
  { name: "lib/ never imports Next", files: "lib/", forbidden: /^next(\/|$)/ },
  { name: "lib/ never imports app/ or components/", files: "lib/", forbidden: /^(app|components)\// },
  {
    name: "lib/http holds web primitives only: no protocol, no handler, no domain above it",
    files: "lib/http/",
    forbidden: /^(@ag-ui\/|@modelcontextprotocol\/|@a2a-js\/|lib\/(api|integrations|agents|approvals|execution|tools|runs|db|services))/,
  },
  { name: "lib/integrations never imports lib/api", files: "lib/integrations/", forbidden: /^lib\/api(\/|$)/ },
  {
    name: "only lib/api and the app mount handlers: the rest of lib/ never imports lib/api",
    files: "lib/",
    except: ["lib/api/"],
    forbidden: /^lib\/api(\/|$)/,
  },
  {
    name: "lib/execution owns the approval port: it never imports lib/approvals",
    files: "lib/execution/",
    forbidden: /^lib\/approvals(\/|$)/,
  },
  {
    name: "lib/client runs in a browser: @ag-ui/*, react, fast-json-patch, @cfworker/json-schema and itself only",
    files: "lib/client/",
    forbidden: /^(?!@ag-ui\/|react$|fast-json-patch$|@cfworker\/json-schema$|lib\/client\/)/,
  },
  {
    name: "storage stays behind lib/db: no SQL driver or query builder elsewhere",
    files: "lib/",
    except: ["lib/db/"],
    forbidden: /^(drizzle-orm|better-sqlite3|pg)(\/|$)/,
  },
  {
    name: "components import from lib/ only the API's contracts, the browser client and JSON helpers",
    files: "components/",
    forbidden: /^lib\/(?!api\/contracts$|client(\/|$)|json\/)/,
  },
];

/** True when `spec`, imported by the file at `relative` (repo-relative), breaks `rule`. */
function breaks(rule: Rule, relative: string, spec: string): boolean {
  if (!relative.startsWith(rule.files) || (rule.except ?? []).some((prefix) => relative.startsWith(prefix))) return false;
  // Node's own modules are fine on the server; only the browser client must do without them.
  if (spec.startsWith("node:") && rule.files !== "lib/client/") return false;
  return rule.forbidden.test(target(path.join(root, relative), spec));
}

function violations(rule: Rule, files: string[]): string[] {
  return files.flatMap((file) => {
    const relative = path.relative(root, file).split(path.sep).join("/");
    return imports(fs.readFileSync(file, "utf8"))
      .filter((spec) => breaks(rule, relative, spec))
      .map((spec) => `${relative}: ${spec}`);
  });
}

describe("layering", () => {
  const files = ["lib", "components", "app"].flatMap((dir) => sourceFiles(path.join(root, dir)));

  it("finds the files it checks", () => {
    expect(files.filter((f) => f.includes(`${path.sep}lib${path.sep}`)).length).toBeGreaterThan(50);
    expect(files.filter((f) => f.includes(`${path.sep}components${path.sep}`)).length).toBeGreaterThan(20);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      expect(violations(rule, files)).toEqual([]);
    });
  }

  it("each rule catches the import it forbids", () => {
    const probes: Array<[string, string]> = [
      ["lib/x.ts", 'import { headers } from "next/headers";'],
      ["lib/x.ts", 'import { Chat } from "@/components/chat/chat-view";'],
      ["lib/http/x.ts", 'import { EventType } from "@ag-ui/core";'],
      ["lib/http/x.ts", 'import { route } from "../api";'],
      ["lib/integrations/agui/x.ts", 'import { consoleApi } from "../../api";'],
      ["lib/runs/x.ts", 'import type { ThreadView } from "../api/threads";'],
      ["lib/execution/x.ts", 'import { ApprovalStore } from "../approvals/store";'],
      ["lib/client/x.ts", 'import { ToolRegistry } from "../tools/registry";'],
      ["lib/client/x.ts", 'import fs from "node:fs";'],
      ["lib/tools/x.ts", 'import { eq } from "drizzle-orm";'],
      ["lib/runs/x.ts", 'import pg from "pg";'],
      ["components/x.tsx", 'import { toolsApi } from "@/lib/api/tools";'],
      ["components/x.tsx", 'import { ToolRows } from "@/lib/db/tools";'],
      ["components/x.tsx", 'import { getServices } from "@/lib/services";'],
    ];
    for (const [at, line] of probes) {
      const specs = imports(line);
      expect(specs, line).toHaveLength(1);
      expect(
        RULES.some((rule) => breaks(rule, at, specs[0]!)),
        `${at}: ${line}`,
      ).toBe(true);
    }
  });
});

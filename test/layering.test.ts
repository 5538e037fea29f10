import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    found.push((match[1] ?? match[2] ?? match[3])!);
  }
  return found;
}

describe("layering", () => {
  const libFiles = sourceFiles(path.join(root, "lib"));

  it("finds the files it checks", () => {
    expect(libFiles.length).toBeGreaterThan(10);
  });

  it("lib/ never imports next/*", () => {
    const offenders = libFiles.flatMap((file) =>
      imports(file)
        .filter((spec) => spec === "next" || spec.startsWith("next/"))
        .map((spec) => `${path.relative(root, file)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("lib/ never imports app/ or components/", () => {
    const offenders = libFiles.flatMap((file) =>
      imports(file)
        .filter(
          (spec) =>
            /^@\/(app|components)\//.test(spec) ||
            (spec.startsWith(".") && /^(app|components)\//.test(path.relative(root, path.resolve(path.dirname(file), spec)))),
        )
        .map((spec) => `${path.relative(root, file)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("lib/client imports only @ag-ui/* and itself", () => {
    const clientDir = path.join(root, "lib", "client");
    const files = fs.existsSync(clientDir) ? sourceFiles(clientDir) : [];
    const offenders = files.flatMap((file) =>
      imports(file)
        .filter((spec) => {
          if (spec.startsWith(".")) return !path.resolve(path.dirname(file), spec).startsWith(clientDir);
          return !(spec.startsWith("@ag-ui/") || spec === "react" || spec === "fast-json-patch");
        })
        .map((spec) => `${path.relative(root, file)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the import scanner sees a next/* import when there is one", () => {
    const probe = path.join(root, "test", ".layering-probe.ts");
    fs.writeFileSync(probe, 'import { headers } from "next/headers";\nexport { headers };\n');
    try {
      expect(imports(probe)).toEqual(["next/headers"]);
    } finally {
      fs.rmSync(probe);
    }
  });
});

import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { embedSnippets } from "@/components/embed/snippets";

// The React snippet cannot run here without a browser, but it can be compiled: against the
// CopilotKit the console installs (the one /embed/copilotkit runs), as a strict TypeScript file.
// A renamed prop or hook, or a wrong callback shape, fails this test before a developer pastes it.
const root = path.resolve(__dirname, "../..");

/** Type errors of `source` as a .tsx file beside this test (so imports resolve from the project). */
function typeErrors(source: string): string[] {
  const file = path.join(root, "test", "embed", "__react_snippet__.tsx");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.dom.d.ts", "lib.es2023.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, source, language, true, ts.ScriptKind.TSX) : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

describe("the React (CopilotKit) snippet", () => {
  it("type-checks against the installed @copilotkit/react-core, with a token or reading it from the environment", () => {
    const withToken = embedSnippets({ url: "https://console.example.com/api/agui/demo", agent: "demo", token: "aguic_x" }).react;
    expect(typeErrors(withToken)).toEqual([]);
    const fromEnv = embedSnippets({ url: "https://console.example.com/api/agui/it's", agent: 'a"b' }).react;
    expect(typeErrors(fromEnv)).toEqual([]);
  }, 60_000);

  it("a wrong snippet does fail (the check is not vacuous)", () => {
    const broken = embedSnippets({ url: "https://h/api/agui/demo", agent: "demo" }).react.replace(
      "useInterrupt({",
      "useInterrupt({ bogus: 1,",
    );
    expect(typeErrors(broken).join("\n")).toMatch(/bogus/);
  }, 60_000);
});

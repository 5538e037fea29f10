import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "drizzle/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
      // Built by scripts/build-widget.ts (gitignored).
      "public/embed/widget.js",
      // Worker bundles, built by lib/workers/worker-bundle.ts (gitignored).
      ".workers/**",
      "bench/.out/**",
      "e2e/.artifacts/**",
      "data/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    // Type-aware checks for promises, where the stores are async: a call whose promise nobody awaits
    // runs its write after the caller went on (or fails unheard). They need the type checker, which
    // costs about a minute of a whole-project lint here, so only lib/ and test/ pay for it.
    files: ["lib/**/*.ts", "lib/**/*.tsx", "test/**/*.ts", "test/**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    files: ["lib/**/*.ts", "lib/**/*.tsx"],
    rules: {
      // lib/ is the domain: it must run without Next (tests, scripts, a bare node:http server).
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^next(/|$)", message: "lib/ never imports next/*: keep Next in app/ and components/." }] },
      ],
      // Configuration is read once, in lib/config.ts.
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read settings through lib/config.ts (loadConfig)." },
      ],
    },
  },
  {
    files: ["lib/config.ts"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["lib/client/**/*.ts", "lib/client/**/*.tsx"],
    rules: {
      // lib/client runs in a browser: only @ag-ui/* and itself.
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^(next(/|$)|node:|\\.\\./(?!client/))", message: "lib/client is browser-safe: it imports only @ag-ui/* and itself." },
          ],
        },
      ],
    },
  },
  {
    files: ["scripts/**/*.mjs", "examples/**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        crypto: "readonly",
        fetch: "readonly",
        Headers: "readonly",
        setTimeout: "readonly",
      },
    },
  },
);

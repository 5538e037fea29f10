// A file that reads its own directory and path: bench bundles must keep them (test/bench-bundle.test.ts).
export const here = __dirname;
export const file = __filename;

export { SourceStore, type SourceSummary, type NewSource, type SourceKind, type SourceStatus } from "./store";
export { removeSource } from "./remove-source";
export { SourceNotFound } from "./errors";

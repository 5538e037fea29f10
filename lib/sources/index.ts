export { SourceStore, type SourceSummary, type NewSource, type SourceKind, type SourceStatus } from "../db/sources";
export { removeSource } from "./remove-source";
export { SourceNotFound } from "./errors";

export * as schema from "./schema";
export { openDatabase, DatabaseOpenError, defaultMigrationsFolder, DEFAULT_BUSY_TIMEOUT_MS } from "./connection";
export type { Db, DatabaseHandle, OpenDatabaseOptions, StorageFault, StorageFaultKind } from "./connection";
export { KnownDatabases } from "./known-databases";
export { InvalidCursor, encodeCursor, decodeCursor } from "./cursor";

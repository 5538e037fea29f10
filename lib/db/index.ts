export * as schema from "./schema";
export { openDatabase, DatabaseOpenError, defaultMigrationsFolder } from "./connection";
export type { Db, DatabaseHandle, OpenDatabaseOptions } from "./connection";
export { InvalidCursor, encodeCursor, decodeCursor } from "./cursor";

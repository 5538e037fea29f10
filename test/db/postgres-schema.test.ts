// lib/db/schema.pg.ts against lib/db/schema.ts, from drizzle's own metadata: what lib/db/parity.ts
// cannot see because it compares TypeScript types only. Both `integer` and `bigint({ mode:
// "number" })` read as `number`, yet PostgreSQL's integer overflows on Date.now(); and names,
// indexes, keys and defaults are not part of a row type at all.
import { getTableName, is, SQL, type Column } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable, type PgColumn } from "drizzle-orm/pg-core";
import { getTableConfig as liteConfig, SQLiteTable, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as lite from "@/lib/db/schema";
import * as pg from "@/lib/db/schema.pg";

const liteTables = (Object.entries(lite) as Array<[string, unknown]>).filter((entry): entry is [string, SQLiteTable] =>
  is(entry[1], SQLiteTable),
);
const pgTables = new Map(
  (Object.entries(pg) as Array<[string, unknown]>).filter((entry): entry is [string, PgTable] => is(entry[1], PgTable)),
);

/** A column that holds milliseconds: a time since the epoch (`*_at`, `lease_until`) or a duration (`*_ms`). */
const holdsMilliseconds = (name: string) => /_at$|_ms$|^lease_until$/.test(name);

/** The PostgreSQL column type each SQLite column must have. */
function expectedPgType(column: SQLiteColumn): string {
  switch (column.columnType) {
    case "SQLiteText":
      return "PgText";
    case "SQLiteTextJson":
      return "PgJsonb";
    case "SQLiteBoolean":
      return "PgBoolean";
    case "SQLiteInteger":
      return holdsMilliseconds(column.name) ? "PgBigInt53" : "PgInteger";
    default:
      return `no mapping for ${column.columnType}`;
  }
}

/** What both dialects must agree on about a column, whatever its type. */
function columnShape(column: Column) {
  const fallback = column.default;
  return {
    name: column.name,
    notNull: column.notNull,
    primary: column.primary,
    unique: column.isUnique ? column.uniqueName : false,
    // SQL defaults (the clock) are written per dialect; a plain value must be the same one.
    default: is(fallback, SQL) ? "sql" : fallback,
    generated: "autoIncrement" in column ? column.autoIncrement === true : (column as PgColumn).generatedIdentity !== undefined,
  };
}

const names = (columns: Array<{ name: string }>) => columns.map((column) => column.name);

function tableShape(config: ReturnType<typeof liteConfig> | ReturnType<typeof pgConfig>) {
  return {
    name: config.name,
    columns: config.columns.map(columnShape),
    primaryKeys: config.primaryKeys.map((key) => ({ name: key.getName(), columns: names(key.columns) })),
    indexes: config.indexes
      .map((index) => ({
        name: index.config.name,
        unique: index.config.unique,
        columns: names(index.config.columns as Array<{ name: string }>),
      }))
      .sort((a, b) => a.name!.localeCompare(b.name!)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference();
        return {
          name: key.getName(),
          columns: names(reference.columns),
          table: getTableName(reference.foreignTable),
          foreignColumns: names(reference.foreignColumns),
          onDelete: key.onDelete ?? "no action",
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
    uniqueConstraints: config.uniqueConstraints.map((unique) => ({ name: unique.name, columns: names(unique.columns) })),
  };
}

describe("schema.pg.ts is the twin of schema.ts", () => {
  it("has every table under the same export name, and no other", () => {
    expect(liteTables.length).toBeGreaterThan(10);
    expect([...pgTables.keys()].sort()).toEqual(liteTables.map(([key]) => key).sort());
  });

  for (const [key, table] of liteTables) {
    it(`${key}: same name, columns, defaults, keys and indexes`, () => {
      const twin = pgTables.get(key);
      expect(twin, key).toBeDefined();
      expect(tableShape(pgConfig(twin!))).toEqual(tableShape(liteConfig(table)));
    });

    it(`${key}: every column has its dialect's type, milliseconds as bigint`, () => {
      const pgColumns = new Map(pgConfig(pgTables.get(key)!).columns.map((column) => [column.name, column]));
      const expected = Object.fromEntries(liteConfig(table).columns.map((column) => [column.name, expectedPgType(column)]));
      const actual = Object.fromEntries(liteConfig(table).columns.map((column) => [column.name, pgColumns.get(column.name)?.columnType]));
      expect(actual).toEqual(expected);
    });
  }

  it("reads every timestamp of the design as milliseconds", () => {
    const millisecondColumns = liteTables.flatMap(([, table]) =>
      liteConfig(table)
        .columns.filter((column) => holdsMilliseconds(column.name))
        .map((column) => `${getTableName(table)}.${column.name}`),
    );
    for (const column of [
      "runs.started_at",
      "approvals.expires_at",
      "mcp_tasks.lease_until",
      "call_results.duration_ms",
      "tools.created_at",
    ])
      expect(millisecondColumns).toContain(column);
    // A millisecond column is an integer in SQLite: the rule above never catches text or JSON.
    for (const [, table] of liteTables)
      for (const column of liteConfig(table).columns.filter((c) => holdsMilliseconds(c.name)))
        expect(column.columnType, `${getTableName(table)}.${column.name}`).toBe("SQLiteInteger");
  });
});

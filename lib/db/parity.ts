/**
 * A compile-time check that ./schema.ts (SQLite) and ./schema.pg.ts (PostgreSQL) describe the same
 * rows, so one store interface can hand out either dialect's rows under one type. `tsc` fails on
 * `SchemaParity` below when a table is missing from either file, or when a table's select
 * or insert row type differs, and the error names the tables. Column types that infer the same
 * TypeScript type (`integer` and `bigint` both read as `number`) are checked at run time instead,
 * by test/db/postgres-schema.test.ts.
 *
 * Nothing here runs: the module holds types only.
 */
import type { Table } from "drizzle-orm";
import type * as lite from "./schema";
import type * as pg from "./schema.pg";

/** The exported names of a schema module that are tables. */
type TablesOf<M> = { [K in keyof M]: M[K] extends Table ? K : never }[keyof M];
type LiteTables = TablesOf<typeof lite>;
type PgTables = TablesOf<typeof pg>;

/** True when A and B are the same type (each assignable to the other, without distributing unions). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The columns the dialects store differently on purpose: SQLite keeps a long batch of run events,
 * and a long source document, deflated as a blob (`string | Buffer`); PostgreSQL keeps them as text
 * only (`string`), because node-postgres cannot write a Buffer into text. The PostgreSQL type is the
 * narrower one, so a reader written for SQLite's rows reads PostgreSQL's as they are. Every other
 * column must match exactly.
 */
type Exempt = { runEvents: "events"; sourceDocuments: "document" };
type ExemptOf<K> = K extends keyof Exempt ? Exempt[K] : never;

type Row<T, Kind extends "$inferSelect" | "$inferInsert"> = T extends Record<Kind, infer R> ? R : never;
type RowOf<M, K extends keyof M, Kind extends "$inferSelect" | "$inferInsert"> = Omit<Row<M[K], Kind>, ExemptOf<K>>;

/** Tables whose rows differ between the dialects, with which side differs. */
type Mismatched = {
  [K in LiteTables & PgTables]:
    | (Same<RowOf<typeof lite, K, "$inferSelect">, RowOf<typeof pg, K, "$inferSelect">> extends true ? never : `${K & string}: select row`)
    | (Same<RowOf<typeof lite, K, "$inferInsert">, RowOf<typeof pg, K, "$inferInsert">> extends true ? never : `${K & string}: insert row`);
}[LiteTables & PgTables];

/** An exempt column's type in one dialect's rows. */
type ExemptColumn<M, K extends keyof Exempt, Kind extends "$inferSelect" | "$inferInsert"> = K extends keyof M
  ? Row<M[K], Kind> extends infer R
    ? Exempt[K] extends keyof R
      ? R[Exempt[K]]
      : never
    : never
  : never;

/** The exempt columns still line up: PostgreSQL's type is SQLite's without Buffer. */
type ExemptMismatched = {
  [K in keyof Exempt]:
    | (Same<ExemptColumn<typeof pg, K, "$inferSelect">, Exclude<ExemptColumn<typeof lite, K, "$inferSelect">, Buffer>> extends true
        ? never
        : `${K}.${Exempt[K]}: select type is not SQLite's without Buffer`)
    | (Same<ExemptColumn<typeof pg, K, "$inferInsert">, Exclude<ExemptColumn<typeof lite, K, "$inferInsert">, Buffer>> extends true
        ? never
        : `${K}.${Exempt[K]}: insert type is not SQLite's without Buffer`);
}[keyof Exempt];

type Problems =
  | Mismatched
  | ExemptMismatched
  | `${Exclude<LiteTables, PgTables> & string}: missing in schema.pg.ts`
  | `${Exclude<PgTables, LiteTables> & string}: missing in schema.ts`;

/** Accepts only `never`: while the schemas differ, tsc names each problem in its error. */
type NoProblems<P extends never> = P;
export type SchemaParity = NoProblems<Problems>;

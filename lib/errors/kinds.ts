/**
 * Every error kind the console answers with, and how each surface shows it: one HTTP status for
 * REST and the endpoints' pre-stream answers, one JSON-RPC code for MCP and A2A. A kind names the
 * mistake, not the endpoint, so the same mistake gets the same answer everywhere.
 */
export const ERROR_KINDS = {
  // The request itself.
  invalid_json: { status: 400, rpc: -32700 },
  invalid_query: { status: 400, rpc: -32602 },
  invalid_cursor: { status: 400, rpc: -32602 },
  invalid_body: { status: 422, rpc: -32602 },
  too_deep: { status: 422, rpc: -32602 },
  payload_too_large: { status: 413, rpc: -32600 },
  unsupported_media_type: { status: 415, rpc: -32600 },
  method_not_allowed: { status: 405, rpc: -32601 },
  not_acceptable: { status: 406, rpc: -32600 },
  invalid_request: { status: 400, rpc: -32600 },
  host_not_served: { status: 421, rpc: -32600 },
  unauthenticated: { status: 401, rpc: -32000 },
  forbidden: { status: 403, rpc: -32000 },
  origin_not_allowed: { status: 403, rpc: -32000 },

  // Things named by the request that do not exist.
  agent_not_found: { status: 404, rpc: -32602 },
  approval_not_found: { status: 404, rpc: -32602 },
  call_not_found: { status: 404, rpc: -32602 },
  run_not_found: { status: 404, rpc: -32602 },
  source_not_found: { status: 404, rpc: -32602 },
  thread_not_found: { status: 404, rpc: -32602 },
  tool_not_found: { status: 404, rpc: -32602 },
  token_not_found: { status: 404, rpc: -32602 },

  // Domain rules.
  approval_already_decided: { status: 409, rpc: -32000 },
  approval_expired: { status: 410, rpc: -32000 },
  approval_decision_invalid: { status: 422, rpc: -32602 },
  approval_not_usable: { status: 409, rpc: -32000 },
  approval_pending: { status: 409, rpc: -32000 },
  duplicate_tool: { status: 409, rpc: -32000 },
  agent_name_taken: { status: 409, rpc: -32000 },
  invalid_tool_definition: { status: 422, rpc: -32602 },
  tool_not_usable: { status: 422, rpc: -32602 },
  run_id_taken: { status: 409, rpc: -32000 },
  invalid_document: { status: 422, rpc: -32602 },
  invalid_options: { status: 422, rpc: -32602 },
  document_unreachable: { status: 422, rpc: -32000 },
  server_unreachable: { status: 422, rpc: -32000 },
  address_not_allowed: { status: 422, rpc: -32000 },
  not_refreshable: { status: 422, rpc: -32602 },
  invalid_token_request: { status: 422, rpc: -32602 },

  // A tool call's outcome (data in a ToolResult; these rows serve a surface that must answer with a status).
  invalid_arguments: { status: 422, rpc: -32602 },
  denied: { status: 403, rpc: -32000 },
  cancelled: { status: 409, rpc: -32000 },
  outcome_unknown: { status: 409, rpc: -32000 },
  timeout: { status: 504, rpc: -32000 },
  failed: { status: 502, rpc: -32000 },
  tool_error: { status: 422, rpc: -32000 },
  invalid_output: { status: 502, rpc: -32000 },

  // The console itself.
  response_too_large: { status: 502, rpc: -32603 },
  config_error: { status: 500, rpc: -32603 },
  database_unavailable: { status: 503, rpc: -32603 },
  internal_error: { status: 500, rpc: -32603 },
} as const satisfies Record<string, { status: number; rpc: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** The HTTP status of a kind. */
export function statusOf(kind: ErrorKind): number {
  return ERROR_KINDS[kind].status;
}

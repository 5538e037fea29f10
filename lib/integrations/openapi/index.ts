export {
  previewOpenApi,
  importOpenApi,
  type OpenApiImportOptions,
  type OpenApiImportDeps,
  type OpenApiPreview,
  type OperationPreview,
  type OpenApiImportResult,
} from "./import-openapi";
export { refreshOpenApiSource } from "./refresh-openapi";
export { registerOpenApiBinder } from "./binder";
export {
  planOpenApiTools,
  type OpenApiPlan,
  type OpenApiPlanOptions,
  type OperationFilter,
  type PlannedOperation,
  type SecuritySchemeSummary,
} from "./plan-tools";
export { loadOpenApiDocument, type OpenApiInput, type LoadOptions, type LoadedDocument } from "./load-document";
export { OpenApiAuth, type AuthRef } from "./auth";
export { OpenApiBinding } from "./binding";
export { operationHandler, buildRequest } from "./operation-handler";
export { OpenApiDocumentError, OpenApiOptionsError, OpenApiFetchError } from "./errors";

export { toLangChainTool, toLangChainTools, type LangChainExportOptions } from "./structured-tool";
export { importLangChainTools, type ImportLangChainOptions } from "./import-tools";
export { ToolException, isToolException } from "./tool-exception";

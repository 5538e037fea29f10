/** The tool list's filters, as query parameters of /tools and /api/tools ("" means any). */
export interface ToolFilters {
  text: string;
  source: string;
  kind: string;
  effects: string;
  approval: string;
  target: string;
  enabled: string;
}

export const EMPTY_FILTERS: ToolFilters = { text: "", source: "", kind: "", effects: "", approval: "", target: "", enabled: "" };

/** Filters from a page's search parameters; unknown keys are ignored. */
export function filtersFrom(params: Record<string, string | string[] | undefined>): ToolFilters {
  const filters = { ...EMPTY_FILTERS };
  for (const key of Object.keys(EMPTY_FILTERS) as Array<keyof ToolFilters>) {
    const value = params[key];
    if (typeof value === "string") filters[key] = value;
  }
  return filters;
}

/** Tools fetched per page of the list. */
export const PAGE_SIZE = 200;

/** Something an exporter changed or could not keep, for the person copying the output. */
export interface ExportWarning {
  tool: string;
  message: string;
}

/** What every exporter returns: the format's value and what it had to say about it. */
export interface ExportResult<T> {
  output: T;
  warnings: ExportWarning[];
}

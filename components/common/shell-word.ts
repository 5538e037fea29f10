/** A word for a POSIX shell in single quotes (a quote inside is closed, escaped and reopened). */
export const shellWord = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

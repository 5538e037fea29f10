// The classes of the fields in the dialogs that add sources, so the three read alike.
export const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm disabled:bg-slate-100";
export const mono = `${input} font-mono text-xs`;
export const label = "block text-sm font-medium";
export const hint = "mt-0.5 text-xs text-slate-500";

/** Shown in place of a page whose content the signed-in person's token does not cover. */
export function ScopeNotice({ title, scope, what }: { title: string; scope: string; what: string }) {
  return (
    <div className="max-w-2xl">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      <p className="mt-3 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="note">
        {what} needs a token with the <code>{scope}</code> scope. Sign out and sign in with such a token, or ask whoever runs this console
        for one.
      </p>
    </div>
  );
}

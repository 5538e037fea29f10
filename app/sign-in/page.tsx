import { SignInForm } from "@/components/auth/sign-in-form";
import { signInTarget } from "@/lib/auth/sign-in-path";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

/** Where people reaching the console from another machine sign in (see the README's security section). */
export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const target = signInTarget((await searchParams).next);
  return (
    <main className="flex min-h-screen items-start justify-center bg-slate-50 pt-32">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-8 shadow-sm">
        <h1 className="text-xl font-semibold tracking-tight">Sign in to AG-UI Console</h1>
        <p className="mt-2 text-sm text-slate-600">
          Paste an API token (an admin makes one in Settings, under API tokens, or with{" "}
          <code className="text-xs">npm run token -- create NAME --scopes agui,approvals</code> on the console&apos;s machine) or the admin
          token set in <code className="text-xs">ADMIN_TOKEN</code>. What you may do follows the token: approvals make you an operator, the
          admin scope an admin.
        </p>
        <SignInForm next={target} />
      </div>
    </main>
  );
}

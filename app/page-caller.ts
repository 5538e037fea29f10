import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { pageCaller } from "@/lib/api/pages";
import type { Principal } from "@/lib/auth";
import { SIGN_IN_PATH } from "@/lib/auth/page-access";
import { getServices } from "@/lib/services";

/**
 * The person a page is rendered for (once per request, shared by layout and page); sends whoever is
 * not signed in, or whose session has ended, to the sign-in page.
 */
export const requireCaller = cache(async (): Promise<Principal> => {
  const caller = await pageCaller(await getServices(), { method: "GET", headers: await headers() });
  if (!caller) redirect(SIGN_IN_PATH);
  return caller;
});

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { pageCaller } from "@/lib/api/pages";
import type { Principal } from "@/lib/auth";
import { PAGE_PATH_HEADER } from "@/lib/auth/page-access";
import { signInPath } from "@/lib/auth/sign-in-path";
import { getServices } from "@/lib/services";

/**
 * The person a page is rendered for (once per request, shared by layout and page); sends whoever is
 * not signed in, or whose session has ended, to the sign-in page.
 */
export const requireCaller = cache(async (): Promise<Principal> => {
  const requestHeaders = await headers();
  const caller = await pageCaller(await getServices(), { method: "GET", headers: requestHeaders });
  if (!caller) redirect(signInPath(requestHeaders.get(PAGE_PATH_HEADER)));
  return caller;
});

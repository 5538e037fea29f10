import { NextResponse, type NextRequest } from "next/server";
import { pageAccess } from "@/lib/auth/page-access";
import { loadConfig } from "@/lib/config";

const config_ = loadConfig();

/** Pages are for the local operator only (see lib/auth/page-access.ts); the API checks each request itself. */
export function proxy(request: NextRequest) {
  const access = pageAccess(request.headers.get("host"), { bindHost: config_.HOST, allowedHosts: config_.ALLOWED_HOSTS });
  if (access.ok) return NextResponse.next();
  return new NextResponse(access.message, { status: access.status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

export const config = {
  // Everything but the API (authenticated per request) and static assets.
  matcher: ["/((?!api/|_next/static|_next/image|favicon.ico).*)"],
};

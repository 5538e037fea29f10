import { NextResponse, type NextRequest } from "next/server";
import { PAGE_PATH_HEADER, pageAccess } from "@/lib/auth/page-access";
import { SIGN_IN_PATH } from "@/lib/auth/sign-in-path";
import { SESSION_COOKIE } from "@/lib/auth/sessions";
import { loadConfig } from "@/lib/config";
import { pageCsp } from "@/lib/http/security-headers";

const config_ = loadConfig();
const plain = { "content-type": "text/plain; charset=utf-8" };
/** The script-tag widget, a static file (public/embed/widget.js, built by next.config.ts). */
const WIDGET_PATH = "/embed/widget.js";

/**
 * Every request but static files and plain API paths (see the matcher): a path with a malformed
 * percent-escape is a 400 here (Next would answer a 500 from the route's decoding). API requests go
 * on to their handlers, which authenticate each one. Pages are served to the local operator and to signed-in people (see
 * lib/auth/page-access.ts), with a CSP whose nonce Next puts on its inline scripts.
 */
export function proxy(request: NextRequest) {
  const path = request.nextUrl.pathname;
  try {
    decodeURIComponent(path);
  } catch {
    return new NextResponse("The path has a malformed percent-encoding\n", { status: 400, headers: plain });
  }
  // The API and the public A2A agent card (/.well-known/) answer for themselves; neither is a page.
  // Nor is the widget's script, which pages elsewhere load without signing in (it holds no secret).
  if (path.startsWith("/api/") || path.startsWith("/.well-known/") || path === WIDGET_PATH) return NextResponse.next();

  const access = pageAccess(path, request.headers.get("host"), request.cookies.has(SESSION_COOKIE), {
    bindHost: config_.HOST,
    allowedHosts: config_.ALLOWED_HOSTS,
  });
  if (access.verdict === "refuse") return new NextResponse(access.message, { status: access.status, headers: plain });
  if (access.verdict === "sign-in") {
    // To the Host the browser used (checked above): request.url's host is Next's guess, not it.
    const target = new URL(`${request.nextUrl.protocol}//${request.headers.get("host")}${SIGN_IN_PATH}`);
    target.searchParams.set("next", path + request.nextUrl.search);
    return NextResponse.redirect(target, 303);
  }

  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = pageCsp(nonce, { dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp); // Next reads the nonce from here for its own scripts
  // The page asked for, so that a page finding the session ended sends its reader back here after signing in.
  headers.set(PAGE_PATH_HEADER, path + request.nextUrl.search);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  // Everything but static assets, and but API paths without a percent-escape: those have nothing to
  // check here, and skipping the proxy spares Next a copy of every API request's body.
  matcher: ["/((?!_next/static|_next/image|favicon.ico|api/[^%]*$).*)"],
};

import { z } from "zod";
import { assertSameOrigin, assertServedHost, authenticate, cookieValue, SESSION_COOKIE } from "../auth";
import { answerErrors, type Handler } from "../http/handler";
import { readJsonBody } from "../http/request-input";
import { json } from "../http/respond";
import type { Services } from "../services";
import { sessionView } from "./pages";

const SignIn = z.object({ token: z.string().min(1, "a token is required").max(500) }).strict();

/**
 * /api/session: sign in to the pages with a token (POST), see who is signed in (GET), sign out
 * (DELETE). The session lives in an httpOnly, SameSite=Strict cookie; it is Secure when PUBLIC_URL
 * is an https URL (the request's own scheme can be forged by a client's X-Forwarded-Proto).
 */
export function sessionApi(services: Pick<Services, "access" | "sessions" | "config" | "logger">) {
  const { access, sessions, logger } = services;
  const secure = services.config.PUBLIC_URL?.startsWith("https:") ?? false;
  const cookie = (value: string, maxAgeS: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;

  const get: Handler = async (request) => json(sessionView(await authenticate(request, access)));

  const signIn: Handler = async (request) => {
    assertServedHost(request, access.allowedHosts);
    // A sign-in from another site would sign the browser in as the attacker.
    assertSameOrigin(request, { required: false });
    const { token } = await readJsonBody(request, SignIn, 4096);
    const opened = await sessions.open(token);
    logger.info("signed in", { principal: opened.principal.id, role: opened.principal.role });
    const maxAgeS = Math.round((opened.expiresAt - Date.now()) / 1000);
    return json(sessionView(opened.principal), { headers: { "set-cookie": cookie(opened.cookie, maxAgeS), "cache-control": "no-store" } });
  };

  const signOut: Handler = async (request) => {
    assertServedHost(request, access.allowedHosts);
    assertSameOrigin(request, { required: false });
    const closed = await sessions.close(cookieValue(request.headers.get("cookie"), SESSION_COOKIE));
    return json({ signedOut: closed }, { headers: { "set-cookie": cookie("", 0) } });
  };

  return { get: answerErrors(get, logger), signIn: answerErrors(signIn, logger), signOut: answerErrors(signOut, logger) };
}

import { DomainError } from "../errors";
import type { TokenInfo } from "../auth/tokens";
import type { Protect } from "../http/authorize";
import { readJsonBody, routeParam } from "../http/request-input";
import { json } from "../http/respond";
import type { Services } from "../services";
import { NewEmbedToken, NewToken, type CreatedEmbedToken, type CreatedToken, type TokenView } from "./tokens-contract";

/** A token request is a name and a few scopes: a kilobyte is plenty. */
const TOKEN_BODY_MAX_BYTES = 4 * 1024;

/**
 * /api/tokens, for admins only (scope "admin"): POST creates an API token and answers its secret
 * once (the store keeps only its hash), GET lists tokens without secrets, DELETE /api/tokens/<id>
 * revokes one. A refused request (bad body 400/422, a name taken 422, non-admin 403) writes nothing.
 * The log names the token and its scopes, never the secret. POST /api/tokens/embed mints an embed
 * token: scope "agui", one agent, a lifetime (default an hour, at most a day), allowed origins.
 */
export function tokensApi(services: Pick<Services, "tokens" | "logger" | "agents">, protect: Protect) {
  const { tokens, logger, agents } = services;

  const list = protect("admin", async () => json({ tokens: (await tokens.list()).map(tokenView) }));

  const create = protect("admin", async (request, caller) => {
    const wanted = await readJsonBody(request, NewToken, TOKEN_BODY_MAX_BYTES);
    // Checked here as well as in the store: in a Next build the services may come from another
    // bundle layer (the page's), whose error classes this layer's error answer does not recognise.
    if ((await tokens.list()).some((t) => t.name === wanted.name && !t.revokedAt))
      throw new DomainError("invalid_token_request", `An active token named "${wanted.name}" exists already; revoke it first`, {
        issues: [{ path: "/name", message: "An active token has this name" }],
      });
    const { token, info } = await tokens.create(wanted.name, wanted.scopes);
    logger.info("token created", { by: caller.id, name: info.name, scopes: info.scopes });
    const answer: CreatedToken = { ...tokenView(info), token };
    return json(answer, { status: 201 });
  });

  const revoke = protect("admin", async (_request, caller, context) => {
    const id = await routeParam(context, "id");
    // By id only: the store's revoke also takes a name, which a path segment must not reach.
    const target = (await tokens.list()).find((t) => t.id === id && !t.revokedAt);
    // Revoked by someone else (another console instance) since the list was read: not this call's to report.
    if (!target || !(await tokens.revoke(target.id)))
      throw new DomainError("token_not_found", `No active token with id "${id.slice(0, 80)}"`);
    logger.info("token revoked", { by: caller.id, name: target.name });
    return json({ revoked: tokenView({ ...target, revokedAt: Date.now() }) });
  });

  const createEmbed = protect("admin", async (request, caller) => {
    const wanted = await readJsonBody(request, NewEmbedToken, TOKEN_BODY_MAX_BYTES);
    if (!agents.get(wanted.agent))
      throw new DomainError("invalid_token_request", `No agent named "${wanted.agent}"; GET /api/agui lists them`, {
        issues: [{ path: "/agent", message: "No agent has this name" }],
      });
    const { token, info } = await tokens.createEmbed(wanted.agent, {
      origins: wanted.origins,
      ttlMs: wanted.ttlSeconds === undefined ? undefined : wanted.ttlSeconds * 1000,
    });
    logger.info("embed token created", { by: caller.id, name: info.name, agent: info.agent, origins: info.origins });
    const answer: CreatedEmbedToken = {
      ...tokenView(info),
      token,
      agent: info.agent!,
      origins: info.origins ?? [],
      expiresAt: info.expiresAt!,
    };
    return json(answer, { status: 201 });
  });

  return { list, create, createEmbed, revoke };
}

/** What a client may see of a token: everything but the secret, which the store does not even hold. */
export function tokenView(info: TokenInfo): TokenView {
  return {
    id: info.id,
    name: info.name,
    scopes: [...info.scopes],
    agent: info.agent,
    expiresAt: info.expiresAt,
    createdAt: info.createdAt,
    lastUsedAt: info.lastUsedAt,
    revokedAt: info.revokedAt,
  };
}

import { answerErrors, type Handler } from "../http/handler";
import { json } from "../http/respond";
import type { Services } from "../services";

/** GET /api/health: whether the console and its database answer (503 when the database does not). Open to anyone. */
export function healthApi(services: Pick<Services, "database" | "registry" | "logger" | "version">): { get: Handler } {
  const get: Handler = async () => {
    let db: { ok: boolean; tools?: number; error?: string };
    try {
      services.database.ping();
      db = { ok: true, tools: services.registry.count() };
    } catch (error) {
      services.logger.error("health check: database does not answer", { error });
      db = { ok: false, error: "the database does not answer" };
    }
    return json({ ok: db.ok, version: services.version, db }, { status: db.ok ? 200 : 503 });
  };
  return { get: answerErrors(get, services.logger) };
}

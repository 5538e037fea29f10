import type { Services } from "../services";
import { json } from "./respond";
import type { Handler } from "./route";

/** GET /api/health: whether the console and its database answer. */
export function healthHandler(services: Services): Handler {
  return async () => {
    let db: { ok: boolean; tools?: number; error?: string };
    try {
      services.database.sqlite.prepare("select 1").get();
      db = { ok: true, tools: services.registry.count() };
    } catch (error) {
      services.logger.error("health check: database does not answer", { error });
      db = { ok: false, error: "the database does not answer" };
    }
    return json({ ok: db.ok, version: services.version, db }, { status: db.ok ? 200 : 503 });
  };
}

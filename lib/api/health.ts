import { answerErrors, type Handler } from "../http/handler";
import { json } from "../http/respond";
import type { Services } from "../services";

/**
 * GET /api/health: whether the console can serve, and its database take writes. Open to anyone.
 * 200 `{ ok: true, version, db: { ok: true, tools } }`; 503 `{ ok: false, version, db: { ok: false,
 * fault, error } }` when the database does not answer, its file was deleted, moved or replaced
 * since it was opened, it is not writable, or another process holds its lock (`fault` names which,
 * `error` says what to do).
 */
export function healthApi(services: Pick<Services, "storage" | "registry" | "logger" | "version">): { get: Handler } {
  const get: Handler = async () => {
    const fault = await services.storage.check();
    if (fault) {
      services.logger.error("health check: the database cannot take writes", {
        fault: fault.fault,
        dialect: services.storage.dialect,
        ...(services.storage.database && { path: services.storage.database.path }),
      });
      return json({ ok: false, version: services.version, db: { ok: false, fault: fault.fault, error: fault.message } }, { status: 503 });
    }
    return json({ ok: true, version: services.version, db: { ok: true, tools: services.registry.count() } });
  };
  return { get: answerErrors(get, services.logger) };
}

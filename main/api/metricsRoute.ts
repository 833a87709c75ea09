// GET /metrics (R18.5, API.md): the /api transport rules — same origin, then the admin token as
// Bearer — unless the operator made the metrics public with the `metricsPublic` setting.
import type { RequestHandler } from "express";
import { refuseCrossOrigin, requireAdminToken } from "./httpAdapter.js";

export interface MetricsRouteDeps {
  adminToken: string;
  /** Read per scrape, so a changed `metricsPublic` applies to the next one (R10.3). */
  isPublic: () => boolean;
  contentType: string;
  render: () => Promise<string>;
}

export function metricsRoute(deps: MetricsRouteDeps): RequestHandler[] {
  const tokenCheck = requireAdminToken(deps.adminToken);
  const authorise: RequestHandler = (req, res, next) => (deps.isPublic() ? next() : tokenCheck(req, res, next));
  const serve: RequestHandler = async (_req, res) => {
    const body = await deps.render();
    res.status(200).setHeader("Content-Type", deps.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.end(body);
  };
  return [refuseCrossOrigin, authorise, serve];
}

// R1.3, R17.1, R16.5, R21.1: the model-list routes, mounted from the client halves' registry. Each
// half declares its GET routes (formats/*/models.ts); on a path several halves answer
// (GET /v1/models: OpenAI's list, Codex's catalogue, Google's), the routes that claim a request
// come first, in registry order, and the path's own answer takes the rest. Each route is guarded
// in the format of the half that answers it.
import type express from "express";
import type { RequestHandler } from "express";
import type { Clock } from "../../engine/ports.js";
import { clientHalves, type ClientHalf } from "../formats/index.js";
import type { ModelListRequest, ModelListRoute } from "../formats/models.js";
import { sendPlainJson } from "../context/plainJson.js";
import type { CatalogPort } from "../context/ports.js";
import { clientAuth, stampClientHeaders, type ClientGuardDeps } from "./clientRoutes.js";
import { loginServedModels, servedModels, type WindowsView } from "./servedModels.js";

export interface ModelRouteDeps extends ClientGuardDeps {
  catalog: CatalogPort;
  clock: Clock;
  /** R25.3: the models' context windows (absent: modelInfo's alone). */
  windows?: WindowsView;
}

/** R25.7: `GET /models` is served as `GET /v1/models`, by the same routes, which read it as that path. */
export const UNPREFIXED_MODELS_PATH = "/models";
const MODELS_PATH = "/v1/models";

function listRequest(req: express.Request): ModelListRequest {
  const path = req.path === UNPREFIXED_MODELS_PATH ? MODELS_PATH : req.path;
  return { path, query: req.query, headers: req.headers };
}

function handler(half: ClientHalf, route: ModelListRoute, deps: ModelRouteDeps): RequestHandler {
  return (req, res) => {
    const models = route.models === "logins" ? loginServedModels(deps.catalog, half.format, deps.windows) : servedModels(deps.catalog, deps.windows);
    const answer = route.answer(listRequest(req), models, deps.clock.now());
    stampClientHeaders(res);
    sendPlainJson(res, answer.status, answer.body);
  };
}

/** Mounts every half's model-list routes on `app`: claiming routes first, then each path's own. */
export function mountModelRoutes(app: express.Express, deps: ModelRouteDeps): void {
  const routes = clientHalves().flatMap((half) => half.modelRoutes.map((route) => ({ half, route })));
  const claiming = routes.filter(({ route }) => route.claims);
  const own = routes.filter(({ route }) => !route.claims);
  for (const { half, route } of [...claiming, ...own]) {
    const claims = route.claims?.bind(route);
    const claimed: RequestHandler = (req, _res, next) => (claims && !claims(listRequest(req)) ? next("route") : next());
    const paths = route.path === MODELS_PATH ? [MODELS_PATH, UNPREFIXED_MODELS_PATH] : [route.path];
    app.get(paths, claimed, clientAuth(half.format, deps), handler(half, route, deps));
  }
}

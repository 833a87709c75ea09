// R1.3: the model-list routes a client half declares (GET), which the server mounts from the
// registry: the path, whether a request on a path several formats answer is this format's, which
// models it lists, and the answer in the format's own shape.
import type { ModelInfo } from "../../../shared/types.js";

/** One model name a client may use, with what modelInfo says of it. */
export interface ServedModel {
  id: string;
  info?: ModelInfo;
  /** Who serves it, for the OpenAI list's owned_by. */
  owner: string;
  /** R25.3: its context window as Switchyard knows it (a combo's: its largest target's); null when unknown. */
  window?: number | null;
}

/** What a model-list route reads of the request. */
export interface ModelListRequest {
  /** The path as it came, without the query. */
  path: string;
  /** The parsed query string. */
  query: Readonly<Record<string, unknown>>;
  /** As Node delivers them (ClientHeaders). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The answer: a status and a JSON body in the format's own shape (its errors included). */
export interface ModelListAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface ModelListRoute {
  /** An exact path, or a pattern of paths (one model's). */
  readonly path: string | RegExp;
  /**
   * For a path other formats answer too (GET /v1/models): whether this request is this format's.
   * Absent: the path's own answer, given when no claiming route takes the request.
   */
  claims?(request: ModelListRequest): boolean;
  /** Every model a client may use, or only those of the providers that serve this format's logins (R21.1). */
  readonly models: "served" | "logins";
  /** `now` is epoch ms. */
  answer(request: ModelListRequest, models: ServedModel[], now: number): ModelListAnswer;
}

/** The id in a one-model path after its prefix, percent-decoded; null when it is not valid percent-encoding. */
export function modelIdOf(rest: string): string | null {
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
}

// Reasoning provenance (R20.1, R16.7, R22.3) as a feature: the artifacts an answer carries are read
// off what the client receives and booked to the connection that issued them; before each attempt
// the artifacts the target connection did not issue are taken out of the body it is sent.
import type { CodingAgentSettings } from "../../engine/agentPolicy.js";
import { ContextVar } from "../context/requestContext.js";
import type { ReasoningProvenance } from "./provenance/book.js";
import { foreignStripped } from "./provenance/strip.js";
import { artifactTap } from "./provenance/tap.js";
import type { RequestFeature } from "./feature.js";

export interface ProvenanceDeps {
  book: ReasoningProvenance;
  settings: () => Pick<CodingAgentSettings, "reasoningProvenance">;
}

const ON = new ContextVar<boolean>("provenance on");
const TAP = new ContextVar<(text: string) => void>("artifact tap");

export function provenanceFeature(deps: ProvenanceDeps): RequestFeature {
  return {
    name: "provenance",
    arrive(ctx) {
      if (deps.settings().reasoningProvenance.enabled === false) return null;
      ctx.set(ON, true);
      const tap = artifactTap(ctx.format, deps.book, () => ctx.client.answeringConnectionId);
      if (tap) ctx.set(TAP, tap);
      return null;
    },
    beforeAttempt(ctx, { connection }, body) {
      if (!ctx.get(ON)) return body;
      // Read in the client's format whatever the upstream's: a translated item can carry another account's signature.
      const stripped = foreignStripped(ctx.format, body, deps.book, connection.id);
      ctx.record.artifactsStripped(stripped && { removed: stripped.removed, plain: stripped.plain });
      return stripped ? stripped.body : body;
    },
    frame(ctx, text) {
      ctx.get(TAP)?.(text);
    },
  };
}

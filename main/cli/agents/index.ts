// The coding agents `switchyard run` and `switchyard connect` know (R23.2): one file per agent,
// one line here. Locations were read from each agent's installed package (see the notes in each
// file); CLIENTS.md has the measured behaviour.
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { gemini } from "./gemini.js";
import { opencode } from "./opencode.js";
import { pi } from "./pi.js";
import { qwen } from "./qwen.js";
import { keysOf } from "../../../shared/records.js";
import type { AgentRecord } from "./record.js";

export type { AgentRecord } from "./record.js";

export const AGENTS = { claude, codex, gemini, opencode, qwen, pi } satisfies Record<string, AgentRecord>;

export type AgentName = keyof typeof AGENTS;

export const AGENT_NAMES: readonly AgentName[] = keysOf(AGENTS);

export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}

// Helpers for running the real Claude Code and Codex logged in with a subscription (R21.8), each in a
// temporary HOME with fake login files (CLIENTS.md, "Logged in with a subscription"), configured with
// exactly the lines the Connect page hands out (renderer/src/pages/connect/subscription.ts).
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSubscriptionSnippets, type SubscriptionSnippet } from "../../../renderer/src/pages/connect/subscription.js";
import { clientBin } from "../../clients/locate.js";
import { runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";

/** Obviously fake logins: nothing here is, or looks like it could be, a real credential. */
export const CLAUDE_LOGIN = "sk-ant-oat01-FAKE-test-login-for-switchyard-0000000000000000";
export const CLAUDE_REFRESH = "sk-ant-ort01-FAKE-test-refresh-0000000000000000";
export const CODEX_ACCOUNT = "acct-FAKE-switchyard-test";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT as ChatGPT issues them, with the claims Codex reads; the signature is not checked locally. */
export function fakeChatgptJwt(accountId: string, plan = "plus"): string {
  // exp: 2100-01-01, so Codex never tries to refresh.
  const claims = { exp: 4_102_444_800, email: "fake@example.invalid", "https://api.openai.com/auth": { chatgpt_account_id: accountId, chatgpt_plan_type: plan } };
  return `${b64url({ alg: "RS256", typ: "JWT" })}.${b64url(claims)}.FAKE-signature`;
}

export const CODEX_LOGIN = fakeChatgptJwt(CODEX_ACCOUNT);

export const RUN_TIMEOUT_MS = 120_000;

/** `export NAME=value` lines of a shell snippet as variables (values bare or in double quotes). */
export function shellExports(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    const raw = m[2];
    vars[m[1]] = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/\\(["\\$`])/g, "$1") : raw;
  }
  return vars;
}

export function subscriptionSnippet(kind: SubscriptionSnippet["kind"], url: string, key: string | null): SubscriptionSnippet {
  return buildSubscriptionSnippets({ url, key }).find((s) => s.kind === kind)!;
}

/** The variables every run gets besides the snippet's: node on PATH, the temporary HOME, no side traffic. */
function quietEnv(home: string): Record<string, string> {
  return {
    PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
    HOME: home,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
  };
}

/** A HOME with Claude Code logged in to a Max plan (mode 0600, a future expiry: no refresh is tried). */
export function claudeMaxHome(home: string, accessToken = CLAUDE_LOGIN): void {
  mkdirSync(path.join(home, ".claude"), { recursive: true });
  const login = {
    claudeAiOauth: {
      accessToken,
      refreshToken: CLAUDE_REFRESH,
      expiresAt: Date.now() + 7 * 86_400_000,
      scopes: ["user:inference", "user:profile"],
      subscriptionType: "max",
    },
  };
  writeFileSync(path.join(home, ".claude", ".credentials.json"), JSON.stringify(login), { mode: 0o600 });
}

/** A HOME with Codex logged in with ChatGPT and the Connect page's provider block as its config. */
export function codexChatgptHome(home: string, configToml: string, accessToken = CODEX_LOGIN, accountId = CODEX_ACCOUNT): string {
  const codexHome = path.join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const auth = {
    auth_mode: "chatgpt",
    OPENAI_API_KEY: null,
    tokens: { id_token: accessToken, access_token: accessToken, refresh_token: "rt-FAKE-refresh", account_id: accountId },
    last_refresh: new Date().toISOString(),
  };
  writeFileSync(path.join(codexHome, "auth.json"), JSON.stringify(auth), { mode: 0o600 });
  writeFileSync(path.join(codexHome, "config.toml"), configToml.endsWith("\n") ? configToml : configToml + "\n");
  return codexHome;
}

/** `claude -p <prompt> <args…>` with the snippet's variables and nothing else of Switchyard's. */
export function runClaude(snippetText: string, home: string, cwd: string, prompt: string, args: string[] = [], timeoutMs = RUN_TIMEOUT_MS): Promise<ClientRun> {
  return runClientProcess(clientBin("claude"), ["-p", prompt, ...args], { cwd, timeoutMs, env: { ...quietEnv(home), ...shellExports(snippetText) } });
}

/** `codex exec --skip-git-repo-check <args…> <prompt>` with only its config folder pointing anywhere. */
export function runCodex(home: string, cwd: string, prompt: string, args: string[] = [], timeoutMs = RUN_TIMEOUT_MS): Promise<ClientRun> {
  return runClientProcess(clientBin("codex"), ["exec", "--skip-git-repo-check", ...args, prompt], {
    cwd,
    timeoutMs,
    env: { ...quietEnv(home), CODEX_HOME: path.join(home, ".codex") },
  });
}

export function describeRun(run: ClientRun): string {
  return `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.ms} ms\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
}

/** Every file under a folder, as text (latin1, so any byte sequence of a secret is found). */
export function filesUnder(dir: string): Array<[string, string]> {
  return readdirSync(dir).flatMap((name): Array<[string, string]> => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [[p, readFileSync(p).toString("latin1")]];
  });
}

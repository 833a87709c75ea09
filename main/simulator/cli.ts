#!/usr/bin/env node
// Standalone simulated LLM upstream: `node dist/main/simulator/cli.js --port 0 --label sim-a`.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseFault } from "./faults.js";
import { startSimulator } from "./index.js";
import { parseSubscriptions, type SubscriptionSpec } from "./subscriptionSpecs.js";

const USAGE = `Usage: simulator [--port N] [--host H] [--label NAME] [--reply TEXT] [--fault JSON] [--quota-headers]
                 [--subscriptions JSON] [--api-keys K1,K2] [--require-oauth-beta]
A simulated LLM provider (OpenAI Chat and Responses, Anthropic and Gemini wire formats) with programmable faults.
--subscriptions takes a JSON array of logins (see main/simulator/subscriptions.ts), or @FILE holding one, e.g.
  '[{"kind":"anthropic","token":"sk-ant-oat01-…","fiveHourLimit":3},{"kind":"chatgpt","token":"…","chatgptAccountId":"acct-1"}]'
--api-keys lists metered keys Anthropic routes still serve once Anthropic logins are configured;
--require-oauth-beta refuses a Claude login sent without anthropic-beta oauth-2025-04-20, as Anthropic does.`;

/** The --subscriptions list (inline or `@file`); a parse error never repeats the text, which holds logins. */
function subscriptionsFlag(flag: string | undefined): SubscriptionSpec[] | undefined {
  if (flag === undefined) return undefined;
  const text = flag.startsWith("@") ? readFileSync(flag.slice(1), "utf8") : flag;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("--subscriptions is not valid JSON");
  }
  return parseSubscriptions(value);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      label: { type: "string", default: "simulator" },
      reply: { type: "string" },
      fault: { type: "string" },
      "quota-headers": { type: "boolean", default: false },
      subscriptions: { type: "string" },
      "api-keys": { type: "string" },
      "require-oauth-beta": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be 0-65535, got ${values.port}`);
  const sim = await startSimulator({
    port,
    host: values.host,
    label: values.label,
    replyText: values.reply,
    quotaHeaders: values["quota-headers"],
    subscriptions: subscriptionsFlag(values.subscriptions),
    requireOAuthBeta: values["require-oauth-beta"],
    apiKeys: values["api-keys"]?.split(",").filter((k) => k.length > 0),
    defaultFault: values.fault === undefined ? undefined : parseFault(JSON.parse(values.fault)),
  });
  console.log(`Simulator listening on ${sim.url}`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  console.error(`simulator: ${err instanceof Error ? err.message : String(err)}`);
  console.error(USAGE);
  process.exit(2);
});

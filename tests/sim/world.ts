// The running laptop: the real Switchyard server (in-process, ephemeral port on 127.0.0.1, temp home,
// test clock) and one real simulator per provider, so each upstream call names the provider it was
// sent to. It sets the laptop up through the management API, plays the day's events and restarts the
// server on the same home.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SimulatedRequest, Simulator, SubscriptionSpec } from "../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../integration/harness.js";
import type { RuntimeKeys } from "./clients.js";
import type { Step } from "./day.js";
import type { Laptop, ProviderPlan } from "./laptop.js";

export interface UpstreamCall {
  provider: ProviderPlan;
  req: SimulatedRequest;
}

type Json = Record<string, any>;

export const digestOf = (secret: string): string => createHash("sha256").update(secret).digest("hex");

function baseUrlOf(p: ProviderPlan, sim: Simulator): string {
  if (p.chatgptBackend) return `${sim.url}/backend-api/codex`;
  if (p.format === "gemini") return `${sim.url}/v1beta`;
  return p.format === "anthropic" ? sim.url : `${sim.url}/v1`;
}

function simulatorOptions(laptop: Laptop, p: ProviderPlan) {
  const subscriptions: SubscriptionSpec[] = laptop.logins
    .filter((l) => l.providerId === p.id)
    .map((l) => ({ kind: l.kind, token: l.token, name: l.name, chatgptAccountId: l.accountId, fiveHourLimit: l.fiveHourLimit }));
  for (const h of p.held.filter((x) => x.subscription)) subscriptions.push({ kind: "anthropic", token: h.key, name: h.connectionId, fiveHourLimit: 6 });
  const apiKeys = [...p.held.filter((h) => !h.subscription).map((h) => h.key), laptop.ownAnthropicKey];
  // R25.1: the models of this provider with a small window refuse longer prompts in the vendor's words.
  const contextWindows = Object.fromEntries(laptop.windows.filter((w) => w.provider === p.id).map((w) => [w.model, w.window]));
  // A fixed reply: the simulator otherwise names the key it was sent in its answer text, which no vendor does.
  return { label: p.id, replyText: "Simulated answer.", recordLimit: 1_000_000, quotaHeaders: p.quotaHeaders, subscriptions, apiKeys, contextWindows };
}

export class World {
  gw!: TestGateway;
  readonly sims = new Map<string, Simulator>();
  readonly keys: RuntimeKeys = { clientKey: "", lease: null };
  /** Every secret of the laptop: logins, held keys, Switchyard keys, lease owners (I8). */
  readonly secrets = new Set<string>();
  /** Logins whose account row the day switched off (I10). */
  readonly inactiveLogins = new Set<string>();
  private leaseKey = "";
  private readonly toldExhausted = new Set<string>();
  /** How far the day moved the clocks: a restarted server is brought back to the same time. */
  private clockOffsetMs = 0;
  private readonly home = mkdtempSync(path.join(tmpdir(), "switchyard-sim-"));

  constructor(readonly laptop: Laptop) {}

  async start(): Promise<void> {
    for (const p of this.laptop.providers) this.sims.set(p.id, await startSim(simulatorOptions(this.laptop, p)));
    this.gw = await startGateway({ home: this.home, testClock: true });
    for (const l of this.laptop.logins) this.secrets.add(l.token);
    this.secrets.add(this.laptop.ownAnthropicKey);
    await this.setUp();
  }

  async post(route: string, body: unknown, verb = "POST"): Promise<Json> {
    const r = await this.gw.api(verb, route, body);
    if (r.status >= 300) throw new Error(`laptop set-up: ${verb} ${route} → ${r.status} ${r.text.slice(0, 300)}`);
    return r.body as Json;
  }

  private async setUp(): Promise<void> {
    const { laptop } = this;
    for (const p of laptop.providers) {
      const sim = this.sims.get(p.id)!;
      const declared = laptop.windows.filter((w) => w.provider === p.id && w.declared);
      const modelInfo = declared.length > 0 ? { modelInfo: Object.fromEntries(declared.map((w) => [w.model, { contextWindow: w.window }])) } : {};
      await this.post("/api/providers", { id: p.id, format: p.format, baseUrl: baseUrlOf(p, sim), category: p.category, models: p.models, priority: p.priority, ...modelInfo });
      for (const h of p.held) {
        this.secrets.add(h.key);
        await this.post("/api/connections", { id: h.connectionId, provider: p.id, name: `${p.id} key`, apiKey: h.key, ...(h.budget ? { budget: h.budget } : {}) });
      }
      if (p.clientLogin) await this.post("/api/connections", { id: p.clientLogin, provider: p.id, name: "My login", credential: "client" });
    }
    if (laptop.combo) await this.post("/api/combos", { name: laptop.combo.name, strategy: laptop.combo.strategy, targets: laptop.combo.targets.map((model) => ({ model })) });
    await this.post(
      "/api/resilience",
      {
        billingBoundary: laptop.billingBoundary,
        waitOrSwitch: { enabled: true, maxWaitMs: laptop.maxWaitMs },
        quotaPreflightCutoff: laptop.quotaCutoff,
        // D11's combo waits run on real timers (up to 300 s by default, held with keep-alives): bounded here
        // below the harness's answer timeout, else a 120 s 429 burst (R25.6) holds a combo turn past it.
        comboCooldownWait: { enabled: true, maxWaitMs: 20_000, maxAttempts: 2, budgetMs: 30_000 },
      },
      "PATCH",
    );
    const tools = await this.post("/api/keys", { name: "tools", ...(laptop.keyBudget ? { budget: laptop.keyBudget } : {}) });
    this.keys.clientKey = tools.key as string;
    this.secrets.add(this.keys.clientKey);
    if (laptop.leaseConnection) {
      const lease = await this.post("/api/keys", { name: "lease", scopes: ["lease:exclusive"], allowedConnections: [laptop.leaseConnection] });
      this.leaseKey = lease.key as string;
      this.secrets.add(this.leaseKey);
    }
    await this.post("/api/settings", { requireClientKey: laptop.requireClientKey }, "PATCH");
  }

  /** How many calls each simulator has recorded: a mark to read a request's calls from. */
  mark(): Map<string, number> {
    return new Map([...this.sims].map(([id, sim]) => [id, sim.requests.length]));
  }

  callsSince(mark: Map<string, number>): UpstreamCall[] {
    const out: UpstreamCall[] = [];
    for (const p of this.laptop.providers) for (const req of this.sims.get(p.id)!.requests.slice(mark.get(p.id) ?? 0)) out.push({ provider: p, req });
    return out.sort((a, b) => a.req.at - b.req.at);
  }

  /**
   * The subscription logins the gateway has been told are used up (an upstream answered so during the
   * day) and whose window the simulator still says is used up: the gateway rests them until the reset.
   */
  exhaustedLogins(): Set<string> {
    const out = new Set<string>();
    for (const [id, sim] of this.sims) {
      for (const state of sim.subscriptions()) {
        const login = this.laptop.logins.find((l) => l.providerId === id && l.name === state.name);
        if (!login) continue;
        if (!Object.values(state.windows).some((w) => w.exhausted)) this.toldExhausted.delete(login.token);
        else if (this.toldExhausted.has(login.token)) out.add(login.token);
      }
    }
    return out;
  }

  /** Notes the logins an upstream reported used up during a request. */
  heard(calls: UpstreamCall[]): void {
    for (const c of calls) if (c.req.windowExhausted && c.req.key !== null && this.laptop.logins.some((l) => l.token === c.req.key)) this.toldExhausted.add(c.req.key);
  }

  /** The account row a login gets under the client-login connection of its format (R21.2). */
  accountIdOf(token: string, format?: string): string | null {
    const login = this.laptop.logins.find((l) => l.token === token);
    const p = login ? this.laptop.providers.find((x) => x.id === login.providerId) : this.laptop.providers.find((x) => x.clientLogin && x.format === format);
    return p?.clientLogin ? `${p.clientLogin}~${digestOf(token).slice(0, 12)}` : null;
  }

  async accountRows(): Promise<Json[]> {
    return ((await this.gw.api<Json[]>("GET", "/api/connections")).body ?? []).filter((c) => c.accountOf);
  }

  /** Plays one event of the day (requests are played by the run). */
  async play(step: Exclude<Step, { kind: "request" | "restart" }>): Promise<void> {
    if (step.kind === "fault") return this.sims.get(step.provider)!.addFault(step.key ?? "*", step.fault);
    if (step.kind === "exhaust")
      return void this.sims.get(step.provider)!.setSubscriptionUsage(step.login, { window: step.window, exhaust: true, resetInSeconds: step.resetInSeconds });
    if (step.kind === "streamCut") return this.sims.get(step.provider)!.exhaustInStream(step.login, { afterChunks: step.afterChunks });
    if (step.kind === "clock") {
      // A lease would expire in the jump: the owner hands it back and takes it again, as an agent renews.
      const leased = this.keys.lease !== null;
      if (leased) await this.lease("release");
      this.clockOffsetMs += step.advanceMs;
      await this.post("/api/debug/clock", { advanceMs: step.advanceMs });
      for (const sim of this.sims.values()) sim.advanceClock(step.advanceMs);
      if (leased) await this.lease("acquire");
      return;
    }
    if (step.kind === "lease") return this.lease(step.action);
    const login = this.laptop.logins.find((l) => l.name === step.login)!;
    const id = this.accountIdOf(login.token);
    if (!id) return;
    const r = await this.gw.api("PATCH", `/api/connections/${encodeURIComponent(id)}`, step.patch);
    if (r.status !== 200 || step.patch.active === undefined) return;
    if (step.patch.active) this.inactiveLogins.delete(login.token);
    else this.inactiveLogins.add(login.token);
  }

  private async lease(action: "acquire" | "release"): Promise<void> {
    if (!this.leaseKey) return;
    const owner = this.keys.lease?.owner ?? `vlo_${randomBytes(32).toString("base64url")}`;
    if (action === "acquire" && this.keys.lease) return;
    if (action === "release" && !this.keys.lease) return;
    const r = await fetch(`${this.gw.url}/api/v1/session-leases`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.leaseKey}` },
      body: JSON.stringify({ action, owner }),
    });
    const body = (await r.json()) as Json;
    if (action === "acquire" && r.status === 200) {
      this.secrets.add(owner);
      this.keys.lease = { key: this.leaseKey, owner, generation: body.generation as number };
    }
    if (action === "release") this.keys.lease = null;
  }

  /** Stops the server and starts it again on the same home, as a user's reboot does. */
  async restart(): Promise<void> {
    await this.gw.close();
    this.gw = await startGateway({ home: this.home, testClock: true });
    const now = ((await this.gw.api<Json>("GET", "/api/debug/clock")).body?.now as number) ?? Date.now();
    const behind = Date.now() + this.clockOffsetMs - now;
    if (behind > 1_000) await this.post("/api/debug/clock", { advanceMs: behind });
  }

  get homeDir(): string {
    return this.home;
  }

  async close(): Promise<void> {
    await this.gw?.close();
    for (const sim of this.sims.values()) await sim.close();
    rmSync(this.home, { recursive: true, force: true });
  }
}

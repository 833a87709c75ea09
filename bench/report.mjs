// The bench's one table (every load case, every line, as ratios to the node:http floor), then
// the goals of issues 12, 22, 23, 25, 27 and 33 as met / not met. Figures are informational: nothing fails on them.
import { SELECTION_GOAL_US } from "./selection.mjs";
import { ADMISSION_GOAL_US } from "./admission.mjs";
import { USAGE_QUERY_GOAL_MS } from "./usage.mjs";

const fmt = (v, d = 2) => (v === null || v === undefined || Number.isNaN(v) ? "-" : Number(v).toFixed(d));

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => (i <= 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ")).join("\n");
}

function caseOf(results, scenario, concurrency) {
  return results.cases.find((c) => c.scenario === scenario && c.concurrency === concurrency)?.lines ?? null;
}

/**
 * Issue 12, item 3, and issue 22's Responses cases: each goal with its measured value (null when
 * its scenario did not run).
 */
export function goalsOf(results) {
  const json = (c) => caseOf(results, "json", c)?.switchyard ?? null;
  const sel = results.selection?.results.filter((r) => r.connections === 1000) ?? [];
  const goal = (name, value, limit, ok) => ({ name, value, limit, met: value === null || value === undefined ? null : ok(value) });
  // Issue 22: a Responses case's ratio against its chat twin's in the same run. The limit is a
  // measured figure, so without the chat case there is nothing to meet.
  const thr = (scenario) => caseOf(results, scenario, 32)?.switchyard?.ratio.throughput ?? null;
  const notWorse = (scenario, chat) => {
    const limit = thr(chat);
    return goal(`${scenario} c32 throughput ×floor`, limit === null ? null : thr(scenario), `≥ ${chat} c32 (${fmt(limit, 3)})`, (v) => v >= limit);
  };
  return [
    goal("json c32 throughput ×floor", json(32)?.ratio.throughput ?? null, "≥ 0.8", (v) => v >= 0.8),
    goal("json c128 p99 ×floor", json(128)?.ratio.p99 ?? null, "≤ 3", (v) => v <= 3),
    goal("json c1 added p50 ms", json(1)?.addedMs.p50 ?? null, "≤ 1", (v) => v <= 1),
    goal("stream added TTFB p50 ms", results.stream?.switchyard.addedTtfbP50Ms ?? null, "≤ 2", (v) => v <= 2),
    goal("switchyard RSS after load MB", results.rssMb?.afterLoad?.switchyard ?? null, "≤ 150", (v) => v <= 150),
    goal("selection, 1000 connections µs", sel.length ? Math.max(...sel.map((r) => r.usPerRequest)) : null, `≤ ${SELECTION_GOAL_US}`, (v) => v <= SELECTION_GOAL_US),
    goal(`${results.config.streams500?.streams ?? 500} streams RSS growth MB`, results.manyStreams?.switchyard.growthMb ?? null, "< 20", (v) => v < 20),
    goal("admission added p50 µs (gates + queue, no wait)", results.admission?.addedP50.limited ?? null, `≤ ${ADMISSION_GOAL_US}`, (v) => v <= ADMISSION_GOAL_US),
    goal("features c32 throughput ×floor", caseOf(results, "features", 32)?.features?.ratio.throughput ?? null, "≥ 0.7", (v) => v >= 0.7),
    // Issue 25: sharing the resilience state through Redis (R19.1) must not slow the request path.
    ...[32, 256].map((c) =>
      goal(`features c${c} with Redis throughput × without`, caseOf(results, "features", c)?.["features redis"]?.ratio.vsRedisOff ?? null, "≥ 0.9", (v) => v >= 0.9),
    ),
    goal(
      `usage 30-day by-day query over ${results.usage?.rows ?? "-"} rows, worst ms`,
      results.usage ? Math.max(...results.usage.results.map((r) => Math.max(r.coldMs, r.warmMs))) : null,
      `< ${USAGE_QUERY_GOAL_MS}`,
      (v) => v < USAGE_QUERY_GOAL_MS,
    ),
    notWorse("responses", "json"),
    notWorse("responsesSse", "sse"),
    notWorse("gemini", "sse"),
    // Issue 27: no main turn of the replayed session refused (invalid signature after the failover).
    goal("replay refusals, behaviour on", results.replay?.on.refusals ?? null, "= 0", (v) => v === 0),
    // Issue 33: a client's wire format must not cost it speed (agent-sized bodies, one OpenAI upstream).
    ...["lanes", "lanesSse"].flatMap((scenario) =>
      ["messages", "responses", "gemini"].map((lane) =>
        goal(`${scenario} c32 ${lane} lane throughput × chat lane`, caseOf(results, scenario, 32)?.[lane]?.ratio.vsChat ?? null, "≥ 0.9", (v) => v >= 0.9),
      ),
    ),
    // R26.5: a socket turn (incremental input) costs no more CPU than the same turn over HTTP (the noise is 10-20 %).
    goal("wsTurns CPU per socket turn × per HTTP turn", results.wsTurns?.cpuRatio ?? null, "≤ 1", (v) => v <= 1),
    // Issue 34 (R21.1): the client's own login costs the same-format Anthropic lane nothing measurable (the noise is a few %).
    goal("loginSse c32 login lane throughput × held-key lane", caseOf(results, "loginSse", 32)?.login?.ratio.vsChat ?? null, "≥ 0.95", (v) => v >= 0.95),
  ];
}

const LANE_NAMES = ["chat", "messages", "responses", "gemini"];

/** Issue 33: each lane beside the chat lane of its build, and beside the compare build's same lane. */
function printLanes(results) {
  const cases = results.cases.filter((c) => c.lines.chat);
  if (!cases.length) return;
  const compare = cases.some((c) => c.lines["compare chat"]);
  console.log(
    "\nLanes (issue 33): each client format to the same OpenAI upstream, agent-sized bodies; ×chat is the lane's throughput over the chat lane's of the same build, cpu ×chat the chat lane's CPU per request over the lane's (both per round, median)",
  );
  const head = ["case", "lane", "req/s", "cpu ms/req", "thr ×floor", "×chat", "cpu ×chat"];
  const rows = [compare ? [...head, "compare req/s", "compare ×chat", "compare cpu ×chat", "× compare", "cpu × compare"] : head];
  for (const c of cases) {
    LANE_NAMES.forEach((lane, i) => {
      const s = c.lines[lane];
      const old = c.lines[`compare ${lane}`];
      const chat = lane === "chat";
      const row = [
        i === 0 ? `${c.scenario} c${c.concurrency}` : "",
        lane,
        fmt(s?.rps, 0),
        fmt(s?.cpuMsPerRequest, 3),
        fmt(s?.ratio.throughput, 3),
        chat ? "1" : fmt(s?.ratio.vsChat, 3),
        chat ? "1" : fmt(s?.ratio.cpuVsChat, 3),
      ];
      rows.push(
        compare
          ? [...row, fmt(old?.rps, 0), chat ? "1" : fmt(old?.ratio.vsChat, 3), chat ? "1" : fmt(old?.ratio.cpuVsChat, 3), fmt(s?.ratio.vsCompare, 3), fmt(s?.ratio.cpuVsCompare, 3)]
          : row,
      );
    });
  }
  console.log(table(rows));
}

/** R26.5: the same Codex conversation over HTTP and over the socket, Switchyard's CPU and the wall time per turn. */
function printWsTurns(w) {
  console.log(`\nwsTurns: a ${w.turns}-turn Codex conversation, ${w.rounds} rounds each way (CPU of the Switchyard process, /proc, 10 ms ticks)`);
  const rows = [
    ["transport", "CPU ms/turn", "wall ms/turn", "CPU ms/turn by round"],
    ["http (whole history each turn)", fmt(w.http.cpuMsPerTurn, 3), fmt(w.http.wallMsPerTurn, 2), w.http.cpuMsPerTurnRounds.join(" ")],
    ["websocket (new input only)", fmt(w.websocket.cpuMsPerTurn, 3), fmt(w.websocket.wallMsPerTurn, 2), w.websocket.cpuMsPerTurnRounds.join(" ")],
  ];
  console.log(table(rows));
  console.log(`socket CPU per turn × HTTP: ${fmt(w.cpuRatio, 3)}`);
}

/** Issue 27's replay: one row per figure, the run with the behaviour on beside the one with it off. */
function printReplay(replay) {
  const { on, off } = replay;
  console.log(
    `\nReplay: ${replay.turns} Claude Code turns via combo agent (acct-a, acct-b; 2 slots each), 429 on acct-a at turn ${replay.faultTurn}, ${replay.background} background calls per turn`,
  );
  const both = (f) => [f(on), f(off)];
  const bg = (r) => `${r.background.ok}/${r.background.shed}/${r.background.failed}`;
  const log = (v) => (v === null || v === undefined ? "-" : String(v));
  const rows = [
    ["figure", "unit", "on", "off"],
    ["settings", "", "defaults", off.settings.applied ? "3 off" : "REFUSED"],
    ["429 met the main turn at", "turn", ...both((r) => log(r.faultAtTurn))],
    ["refusals (goal 0)", "turns", ...both((r) => r.refusals)],
    ["first refusal", "turn:HTTP", ...both((r) => (r.firstRefusal ? `${r.firstRefusal.turn}:${r.firstRefusal.status}` : "-"))],
    ["other failed turns", "turns", ...both((r) => r.otherFailures)],
    ["re-sent prefix", "tokens", ...both((r) => r.resentPrefixTokens)],
    ["main turn p50", "ms", ...both((r) => fmt(r.mainLatencyMs.p50, 0))],
    ["main turn p95", "ms", ...both((r) => fmt(r.mainLatencyMs.p95, 0))],
    ["main turn max", "ms", ...both((r) => fmt(r.mainLatencyMs.max, 0))],
    ["background ok/shed/failed", "calls", ...both(bg)],
    ["log rows with cacheMove", "rows", ...both((r) => log(r.logs.cacheMove))],
    ["log rows waitOrSwitch wait", "rows", ...both((r) => log(r.logs.waitOrSwitchWait))],
    ["log rows with provenance", "rows", ...both((r) => log(r.logs.provenance))],
    ["log rows classed background", "rows", ...both((r) => log(r.logs.trafficClass && (r.logs.trafficClass.background ?? 0)))],
  ];
  console.log(table(rows));
  const share = (r) => r.cacheReadShare.map((v) => (v === null ? "-" : Math.round(v * 100))).join(" ");
  console.log(`cache-read % per turn, on:  ${share(on)}\ncache-read % per turn, off: ${share(off)}`);
  console.log(`served by (a, b; x failed), on:  ${on.servedBy}\nserved by (a, b; x failed), off: ${off.servedBy}`);
  for (const [name, r] of Object.entries({ on, off })) if (r.firstRefusal) console.log(`first refusal (${name}): ${r.firstRefusal.message}`);
  if (!off.settings.applied) console.log(`the "off" settings were refused, so "off" ran with the defaults: ${off.settings.error}`);
}

export function printReport(results) {
  const { config: cfg } = results;
  console.log(
    `\n${results.loadGenerator ?? "-"}, ${cfg.rounds} interleaved rounds of ${cfg.durationS}s per line, ${cfg.warmupS}s warm-up; ${results.machine.cpus} CPUs, Node ${results.node}`,
  );
  const before = results.loadAverage.start[0];
  console.log(`load average (1 min) before the run: ${before}${before > results.machine.cpus * 0.5 ? " (the machine was busy with other work: expect noisy figures)" : ""}\n`);
  const rows = [["case", "line", "req/s", "p50 ms", "p99 ms", "cpu ms/req", "thr ×floor", "p50 ×floor", "p99 ×floor", "cpu ×floor", "+p50 ms", "errors"]];
  for (const c of results.cases) {
    let first = true;
    for (const [key, s] of Object.entries(c.lines)) {
      rows.push([
        first ? `${c.scenario} c${c.concurrency}` : "",
        key,
        fmt(s.rps, 0),
        fmt(s.p50),
        fmt(s.p99),
        fmt(s.cpuMsPerRequest, 3),
        fmt(s.ratio.throughput, 3),
        fmt(s.ratio.p50),
        fmt(s.ratio.p99),
        fmt(s.ratio.cpuPerRequest),
        fmt(s.addedMs.p50),
        s.errors,
      ]);
      first = false;
    }
  }
  if (results.stream) {
    for (const [key, s] of Object.entries(results.stream))
      rows.push([
        key === "floor" ? "stream TTFB c1" : "",
        key,
        "-",
        fmt(s.ttfbP50),
        fmt(s.ttfbP99),
        "-",
        "-",
        fmt(s.ttfbP50 / results.stream.floor.ttfbP50),
        "-",
        "-",
        fmt(s.addedTtfbP50Ms),
        0,
      ]);
    for (const [key, s] of Object.entries(results.stream))
      rows.push([
        key === "floor" ? "stream total c1" : "",
        key,
        "-",
        fmt(s.totalP50),
        fmt(s.totalP99),
        "-",
        "-",
        fmt(s.totalP50 / results.stream.floor.totalP50),
        "-",
        "-",
        fmt(s.addedTotalP50Ms),
        0,
      ]);
  }
  if (results.rssMb) {
    const settled = results.rssMb.settled;
    const title = settled ? `RSS MB idle → after load → ${results.config.settleS} s idle` : "RSS MB idle → after load";
    for (const [key, v] of Object.entries(results.rssMb.idle)) {
      const after = `${fmt(v, 1)} → ${fmt(results.rssMb.afterLoad?.[key], 1)}${settled ? ` → ${fmt(settled[key], 1)}` : ""}`;
      rows.push([key === "floor" ? title : "", key, after, "", "", "", "", "", "", "", "", ""]);
    }
  }
  if (results.manyStreams) {
    for (const [key, v] of Object.entries(results.manyStreams))
      rows.push([
        key === "floor" ? `${cfg.streams500.streams} streams RSS MB` : "",
        key,
        `${fmt(v.rssBeforeMb, 1)} → ${fmt(v.rssAfterMb, 1)} (${v.growthMb >= 0 ? "+" : ""}${fmt(v.growthMb, 1)})`,
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
      ]);
  }
  if (results.selection) {
    for (const r of results.selection.results) rows.push([`selection ${r.connections} conn`, r.case, `${fmt(r.usPerRequest)} µs`, "", "", "", "", "", "", "", "", ""]);
  }
  if (results.admission) {
    for (const [world, v] of Object.entries(results.admission.p50))
      rows.push([
        world === "noop" ? "admission p50" : "",
        world,
        `${fmt(v)} µs`,
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        world === "noop" ? "" : `+${fmt(v - results.admission.p50.noop)} µs`,
        "",
      ]);
  }
  if (results.usage) {
    for (const r of results.usage.results)
      rows.push([
        r.groupBy === "provider" ? `usage ${results.usage.rows} rows` : "",
        `by ${r.groupBy}/day`,
        `${fmt(r.warmMs)} ms`,
        `cold ${fmt(r.coldMs)}`,
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
      ]);
  }
  console.log(table(rows));
  printLanes(results);
  if (results.replay) printReplay(results.replay);
  if (results.wsTurns) printWsTurns(results.wsTurns);
  console.log("\nGoals (issues 12, 22, 23, 25, 27 and 33, ratios to the node:http floor in this run; informational)\n");
  const g = [["goal", "limit", "measured", "met"]];
  for (const x of results.goals) g.push([x.name, x.limit, fmt(x.value, 3), x.met === null ? "-" : x.met ? "yes" : "NO"]);
  console.log(table(g));
}

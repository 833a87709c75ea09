// Numbered schema migrations (R0.3). Each runs once, in its own transaction, and
// records its number in PRAGMA user_version; the DDL is also written to be
// re-runnable so a half-applied manual fix cannot wedge an upgrade. Migration 1's schema is in two texts.
import type Database from "better-sqlite3";

export interface Migration {
  version: number;
  up(db: Database.Database): void;
}

const V1_CONFIG_TABLES = `
      CREATE TABLE IF NOT EXISTS providers (
        id TEXT PRIMARY KEY,
        format TEXT NOT NULL,
        base_url TEXT NOT NULL,
        category TEXT NOT NULL,
        models TEXT NOT NULL DEFAULT '[]',
        quota_families TEXT NOT NULL DEFAULT '{}',
        passthrough_models INTEGER NOT NULL DEFAULT 0,
        rate_limit_cooldown_seconds INTEGER,
        options TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE IF NOT EXISTS connections (
        id TEXT PRIMARY KEY,
        provider TEXT NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        priority INTEGER NOT NULL DEFAULT 0,
        weight REAL NOT NULL DEFAULT 1,
        active INTEGER NOT NULL DEFAULT 1,
        secret TEXT,
        max_concurrent INTEGER,
        rate_limit_overrides TEXT NOT NULL DEFAULT '{}',
        rate_limit_protection INTEGER,
        provider_specific_data TEXT NOT NULL DEFAULT '{}',
        disable_cooling INTEGER NOT NULL DEFAULT 0,
        test_status TEXT NOT NULL DEFAULT 'active',
        rate_limited_until INTEGER,
        backoff_level INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        last_error_type TEXT,
        error_code TEXT,
        last_error_at INTEGER,
        auth_failure_count INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS connections_by_provider
        ON connections (provider, priority, created_at);

      CREATE TABLE IF NOT EXISTS combos (
        name TEXT PRIMARY KEY,
        strategy TEXT NOT NULL,
        targets TEXT NOT NULL DEFAULT '[]',
        config TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL DEFAULT '[]',
        allowed_connections TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      );

      CREATE TABLE IF NOT EXISTS settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );

`;

const V1_RUNTIME_TABLES = `
      CREATE TABLE IF NOT EXISTS request_log (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        time INTEGER NOT NULL,
        client_format TEXT NOT NULL,
        model TEXT NOT NULL,
        combo TEXT,
        provider TEXT,
        connection_id TEXT,
        status INTEGER NOT NULL,
        error_code TEXT,
        latency_ms INTEGER NOT NULL,
        ttfb_ms INTEGER,
        stream INTEGER NOT NULL,
        input_tokens INTEGER,
        output_tokens INTEGER,
        attempts TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX IF NOT EXISTS request_log_newest ON request_log (time, seq);

      CREATE TABLE IF NOT EXISTS domain_circuit_breakers (
        provider TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        failure_count INTEGER NOT NULL,
        success_count INTEGER NOT NULL,
        opened_at INTEGER,
        open_until INTEGER,
        open_cycles INTEGER NOT NULL,
        last_failure_at INTEGER,
        last_failure_kind TEXT,
        probe_started_at INTEGER,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE IF NOT EXISTS session_account_affinity (
        session_key TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS session_account_affinity_by_connection
        ON session_account_affinity (connection_id);
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(V1_CONFIG_TABLES);
      db.exec(V1_RUNTIME_TABLES);
    },
  },
  {
    // R7.1 pins show when they were last used; R7.2 exclusive leases. Ended leases keep their
    // row (state RELEASED/EXPIRED/REVOKED) so generations never repeat; the partial unique
    // indexes allow one ACTIVE lease per connection and per owner.
    version: 2,
    up(db) {
      const pinColumns = db.prepare<[], { name: string }>("PRAGMA table_info(session_account_affinity)").all();
      if (!pinColumns.some((c) => c.name === "last_used_at")) {
        db.exec("ALTER TABLE session_account_affinity ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0");
      }
      db.exec(`
        CREATE TABLE IF NOT EXISTS session_leases (
          owner_hash TEXT PRIMARY KEY,
          key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
          connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
          generation INTEGER NOT NULL,
          state TEXT NOT NULL,
          acquired_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          ended_at INTEGER
        );
        CREATE UNIQUE INDEX IF NOT EXISTS session_leases_active_connection
          ON session_leases (connection_id) WHERE state = 'ACTIVE';
      `);
    },
  },
  {
    // R12.5: each request log row keeps the egress IP its connection used, for the egress-bucketed
    // lock's sibling lookup; R2.4: breaker open cycles are counted per failure kind.
    version: 3,
    up(db) {
      const columnsOf = (table: string) =>
        db
          .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
          .all()
          .map((c) => c.name);
      if (!columnsOf("request_log").includes("egress_ip")) db.exec("ALTER TABLE request_log ADD COLUMN egress_ip TEXT");
      if (!columnsOf("domain_circuit_breakers").includes("cycles_by_kind")) {
        db.exec("ALTER TABLE domain_circuit_breakers ADD COLUMN cycles_by_kind TEXT NOT NULL DEFAULT ''");
      }
      db.exec("CREATE INDEX IF NOT EXISTS request_log_egress ON request_log (connection_id, time) WHERE egress_ip IS NOT NULL");
    },
  },
  {
    // The request timeline (issue 14): the client kind from the user-agent, what selection skipped
    // before dispatch (JSON), and the prompt text, kept only with prompt logging on.
    version: 4,
    up(db) {
      const columns = new Set(
        db
          .prepare<[], { name: string }>("PRAGMA table_info(request_log)")
          .all()
          .map((c) => c.name),
      );
      const add: Array<[string, string]> = [
        ["client_kind", "TEXT"],
        ["details", "TEXT NOT NULL DEFAULT '{}'"],
        ["prompt_text", "TEXT"],
      ];
      for (const [name, type] of add) if (!columns.has(name)) db.exec(`ALTER TABLE request_log ADD COLUMN ${name} ${type}`);
      db.exec("CREATE INDEX IF NOT EXISTS request_log_by_client ON request_log (client_kind, seq)");
    },
  },
  {
    // R16.4: Responses API turns kept for previous_response_id, as the JSON text of the input and
    // response items. connection_id has no foreign key: deleting a connection must not erase
    // a conversation's history, nor refuse the write of a turn it served a moment before.
    version: 5,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS responses (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          model TEXT NOT NULL,
          connection_id TEXT,
          input_items TEXT NOT NULL,
          response TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS responses_by_expiry ON responses (expires_at);
      `);
    },
  },
  {
    // R18: usage and cost. Each log row keeps every token kind, its cost and the client key; the
    // rollups (hour and day buckets, '' for an unknown dimension so the key stays unique) are kept
    // as batches commit, so a usage query never scans the log; quotas hold what an upstream's
    // rate-limit headers last said per connection and window; keys and connections get a budget.
    // A rollup row is one bucket of one dimension's value (provider "p", model "p/m", key…), so a
    // report by any grouping reads its rows in key order and adds nothing up at query time.
    version: 6,
    up(db) {
      const columnsOf = (table: string) =>
        new Set(
          db
            .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
            .all()
            .map((c) => c.name),
        );
      const addColumns = (table: string, add: Array<[string, string]>) => {
        const have = columnsOf(table);
        for (const [name, type] of add) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
      };
      addColumns("request_log", [
        ["cache_read_tokens", "INTEGER"],
        ["cache_write_tokens", "INTEGER"],
        ["reasoning_tokens", "INTEGER"],
        ["cost_usd", "REAL"],
        ["cost_source", "TEXT"],
        ["cost_notional", "INTEGER NOT NULL DEFAULT 0"],
        ["api_key_id", "TEXT"],
        ["served_model", "TEXT"],
      ]);
      addColumns("api_keys", [["budget", "TEXT"]]);
      addColumns("connections", [
        ["budget", "TEXT"],
        ["subscription", "INTEGER NOT NULL DEFAULT 0"],
      ]);
      db.exec(`
        CREATE TABLE IF NOT EXISTS usage_rollup (
          bucket TEXT NOT NULL,
          dim TEXT NOT NULL,
          t INTEGER NOT NULL,
          value TEXT NOT NULL,
          requests INTEGER NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cache_read_tokens INTEGER NOT NULL,
          cache_write_tokens INTEGER NOT NULL,
          reasoning_tokens INTEGER NOT NULL,
          cost_usd REAL NOT NULL,
          PRIMARY KEY (bucket, dim, t, value)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS usage_quotas (
          connection_id TEXT NOT NULL,
          window TEXT NOT NULL,
          provider TEXT NOT NULL,
          used_percent REAL,
          remaining REAL,
          limit_value REAL,
          reset_at INTEGER,
          source TEXT NOT NULL,
          status TEXT,
          seen_at INTEGER NOT NULL,
          PRIMARY KEY (connection_id, window)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    // R8.1: the provider gate, a cap on the requests in flight over all of a provider's connections
    // (NULL = no gate).
    version: 7,
    up(db) {
      const columns = db.prepare<[], { name: string }>("PRAGMA table_info(providers)").all();
      if (!columns.some((c) => c.name === "max_concurrent")) db.exec("ALTER TABLE providers ADD COLUMN max_concurrent INTEGER");
    },
  },
  {
    // R1.3: providers get a priority (lower first, default 0); a bare model name goes to the first
    // provider that serves it by priority.
    version: 8,
    up(db) {
      const columns = db.prepare<[], { name: string }>("PRAGMA table_info(providers)").all();
      if (!columns.some((c) => c.name === "priority")) db.exec("ALTER TABLE providers ADD COLUMN priority REAL NOT NULL DEFAULT 0");
    },
  },
  {
    // R20.3: each log row keeps its traffic class (NULL on rows written before), and the rollups
    // gain the trafficClass dimension. Every request already rolled up had no class, so its rows
    // start as the per-bucket totals (from the provider dimension, which counts every request) under
    // '' (read as "unknown"): grouping by class adds up to the same totals as any other grouping.
    // OR IGNORE: a second run does not count them twice.
    version: 9,
    up(db) {
      const columns = db.prepare<[], { name: string }>("PRAGMA table_info(request_log)").all();
      if (!columns.some((c) => c.name === "traffic_class")) db.exec("ALTER TABLE request_log ADD COLUMN traffic_class TEXT");
      db.exec(`
        INSERT OR IGNORE INTO usage_rollup (bucket, dim, t, value, requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
        SELECT bucket, 'trafficClass', t, '', SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(cache_write_tokens),
          SUM(reasoning_tokens), SUM(cost_usd)
        FROM usage_rollup WHERE dim = 'provider' GROUP BY bucket, t
      `);
    },
  },
  {
    // R22.3: the reasoning-provenance book across restarts: an artifact's digest (never the
    // artifact) and the connection that issued it. No foreign key: a deleted connection's entries
    // simply never match again, and age out with the rest (provenanceRepo.ts).
    version: 10,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS reasoning_provenance (
          mark TEXT PRIMARY KEY,
          connection_id TEXT NOT NULL,
          issued_at INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS reasoning_provenance_by_age ON reasoning_provenance (issued_at);
      `);
    },
  },
  {
    // R21.1, R21.2: a client-login connection holds no secret (each request brings its login);
    // every distinct login becomes an account row of its own, named by its digest, never the login,
    // and deleted with the connection it belongs to.
    version: 11,
    up(db) {
      db.exec(`
        ALTER TABLE connections ADD COLUMN credential TEXT NOT NULL DEFAULT 'key' CHECK (credential IN ('key', 'client'));
        ALTER TABLE connections ADD COLUMN account_of TEXT REFERENCES connections(id) ON DELETE CASCADE;
        CREATE INDEX IF NOT EXISTS connections_by_account_of ON connections (account_of);
      `);
    },
  },
  {
    // R21.6: who burned each subscription window in its current period: the rises charged to a
    // session ('' = none named) and traffic class. Kept with usage_quotas (quotaRepo.ts), replaced
    // when the window's period changes and deleted with the connection's windows.
    version: 12,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS usage_quota_sessions (
          connection_id TEXT NOT NULL,
          "window" TEXT NOT NULL,
          session TEXT NOT NULL,
          traffic_class TEXT NOT NULL,
          period_reset_at INTEGER,
          used_percent REAL NOT NULL,
          requests INTEGER NOT NULL,
          PRIMARY KEY (connection_id, "window", session, traffic_class)
        );
      `);
    },
  },
  {
    // R25.1: per provider model, the window refusals taught and the largest input a success proved (modelWindowRepo.ts).
    version: 13,
    up(db) {
      db.exec(`CREATE TABLE IF NOT EXISTS model_windows (provider TEXT NOT NULL, model TEXT NOT NULL, learned_window INTEGER,
        proven_input INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL, PRIMARY KEY (provider, model));`);
    },
  },
];

export const CURRENT_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export function readSchemaVersion(db: Database.Database): number {
  const version: unknown = db.pragma("user_version", { simple: true });
  if (typeof version !== "number") throw new Error(`PRAGMA user_version answered ${typeof version}, not a number`);
  return version;
}

/** Applies every migration newer than the database; returns the resulting version. */
export function runMigrations(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  let version = readSchemaVersion(db);
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    db.transaction(() => {
      migration.up(db);
      // user_version lives in the database header, so it commits or rolls back with the DDL.
      db.pragma(`user_version = ${migration.version}`);
    })();
    version = migration.version;
  }
  return version;
}

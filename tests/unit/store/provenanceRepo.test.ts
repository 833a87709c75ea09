// R22.3: the reasoning-provenance book outlives a restart through the store's reasoning_provenance
// table: digests and connection ids only, written behind, bounded by age and by a row cap.
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { blobMark, idMark, ReasoningProvenance } from "../../../main/gateway/features/provenance/book.js";
import { openDatabase } from "../../../main/store/database.js";
import { PROVENANCE_BOUNDS, createProvenanceRepo } from "../../../main/store/provenanceRepo.js";
import { FakeClock, openHarness, type StoreHarness } from "./storeFixture.js";

const DAY = 24 * 3_600_000;

describe("R22.3 the reasoning-provenance repository", () => {
  let h: StoreHarness | undefined;
  let db: Database.Database | undefined;
  afterEach(() => {
    vi.useRealTimers();
    h?.cleanup();
    h = undefined;
    if (db?.open) db.close();
  });

  const rows = (harness: StoreHarness) => {
    const raw = harness.raw();
    try {
      return raw.prepare("SELECT mark, connection_id, issued_at FROM reasoning_provenance ORDER BY issued_at, mark").all();
    } finally {
      raw.close();
    }
  };

  it("R22.3 a book on the store remembers its artifacts across a reopen; only digests are stored, never the artifact", () => {
    h = openHarness();
    const clock = h.clock;
    const book = new ReasoningProvenance({ keeper: h.store.reasoningProvenance, now: () => clock.now() });
    book.remember(blobMark("EqQBCkYIBxgCKkD-signature-of-account-a"), "conn-a");
    clock.advance(1);
    book.remember(idMark("rs_0123456789"), "conn-b");
    h.reopen();
    const reopened = new ReasoningProvenance({ keeper: h.store.reasoningProvenance, now: () => clock.now() });
    expect(reopened.issuedBy(blobMark("EqQBCkYIBxgCKkD-signature-of-account-a"), "conn-a")).toBe(true);
    expect(reopened.issuedBy(blobMark("EqQBCkYIBxgCKkD-signature-of-account-a"), "conn-b")).toBe(false);
    expect(reopened.issuedBy(idMark("rs_0123456789"), "conn-b")).toBe(true);
    const stored = JSON.stringify(rows(h));
    expect(stored).not.toContain("signature-of-account-a");
    expect(stored).not.toContain("rs_0123456789");
    expect(rows(h)).toEqual([
      { mark: blobMark("EqQBCkYIBxgCKkD-signature-of-account-a"), connection_id: "conn-a", issued_at: 1_700_000_000_000 },
      { mark: idMark("rs_0123456789"), connection_id: "conn-b", issued_at: 1_700_000_000_001 },
    ]);
  });

  it("R22.3 entries are written behind the request path: a moment later, the latest per mark, and at once on close", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    h = openHarness();
    const repo = h.store.reasoningProvenance;
    repo.keep({ mark: "s:one", connectionId: "a", at: 1 });
    repo.keep({ mark: "s:one", connectionId: "b", at: 2 });
    expect(rows(h)).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(rows(h)).toEqual([{ mark: "s:one", connection_id: "b", issued_at: 2 }]);
    repo.keep({ mark: "s:two", connectionId: "a", at: 3 });
    h.store.close();
    expect(rows(h)).toEqual([
      { mark: "s:one", connection_id: "b", issued_at: 2 },
      { mark: "s:two", connection_id: "a", issued_at: 3 },
    ]);
  });

  it("R22.3 an entry older than the age bound is dropped at start-up, a younger one kept", () => {
    h = openHarness();
    const now = h.clock.now();
    h.store.reasoningProvenance.keep({ mark: "s:old", connectionId: "a", at: now - PROVENANCE_BOUNDS.maxAgeMs - 1 });
    h.store.reasoningProvenance.keep({ mark: "s:young", connectionId: "a", at: now - PROVENANCE_BOUNDS.maxAgeMs + DAY });
    h.reopen();
    expect(h.store.reasoningProvenance.loadAll().map((e) => e.mark)).toEqual(["s:young"]);
    expect(rows(h)).toHaveLength(1);
  });

  it("R22.3 beyond the row cap the oldest go, at start-up and while entries keep coming (oldest first on load)", () => {
    db = openDatabase(":memory:");
    const clock = new FakeClock();
    const repo = createProvenanceRepo(db, () => clock.now(), undefined, { maxAgeMs: 30 * DAY, maxRows: 10 });
    for (let i = 0; i < 25; i++) repo.keep({ mark: `s:${i}`, connectionId: "a", at: clock.now() + i });
    repo.flush();
    expect(db.prepare("SELECT COUNT(*) AS n FROM reasoning_provenance").get()).toEqual({ n: 25 });
    expect(repo.loadAll().map((e) => e.mark)).toEqual(Array.from({ length: 10 }, (_, i) => `s:${i + 15}`));
    // Without a restart, a long run is pruned as it writes: the table never grows far past the cap.
    for (let i = 0; i < 1_200; i++) repo.keep({ mark: `s:more-${i}`, connectionId: "a", at: clock.now() + 100 + i });
    repo.flush();
    const left = db.prepare<[], { mark: string }>("SELECT mark FROM reasoning_provenance ORDER BY issued_at").all();
    expect(left.map((r) => r.mark)).toEqual(Array.from({ length: 10 }, (_, i) => `s:more-${i + 1_190}`));
    // And by age: a month on, everything kept is past the bound.
    clock.advance(31 * DAY);
    expect(repo.prune()).toBe(10);
    expect(repo.loadAll()).toEqual([]);
  });
});

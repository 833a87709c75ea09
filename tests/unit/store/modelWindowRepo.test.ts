// R25.1: learned context windows outlive a restart: the book's rows are written behind and on
// close, as they stand when written, and a new store loads them back.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ContextWindows } from "../../../main/engine/contextWindows.js";
import { createFileKeyCipher, createStore } from "../../../main/store/index.js";
import { makeTempHome } from "./storeFixture.js";

describe("R25.1 model windows in the store", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  });

  it("R25.1 a learned window and the largest proven input are kept across a restart, as they last stood", () => {
    const home = makeTempHome();
    homes.push(home);
    const open = () => createStore({ dbPath: path.join(home, "switchyard.db"), cipher: createFileKeyCipher(home) });
    const first = open();
    const book = new ContextWindows(first.modelWindows.loadAll());
    book.onChange((row) => first.modelWindows.keep(row));
    book.learn("p", "m", 8_000, 1);
    book.served("p", "m", 3_000, 2);
    book.served("q", "n", 1_000, 3);
    first.close();

    const second = open();
    try {
      const rows = second.modelWindows.loadAll().sort((a, b) => a.provider.localeCompare(b.provider));
      expect(rows).toEqual([
        { provider: "p", model: "m", learnedWindow: 8_000, provenInput: 3_000, updatedAt: 2 },
        { provider: "q", model: "n", learnedWindow: null, provenInput: 1_000, updatedAt: 3 },
      ]);
      expect(new ContextWindows(rows).windowOf("p", "m", 200_000)).toBe(8_000);
    } finally {
      second.close();
    }
  });
});

import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { setup, widget } from "./test-fixtures.js";
import { LIST_PAGE_SIZE } from "./list.js";

type Store = ReturnType<typeof setup>["store"];

async function pagesOf(store: Store, labelSelector?: string): Promise<KubeObject[][]> {
  const list = await store.listPages!("default", labelSelector === undefined ? {} : { labelSelector });
  const pages: KubeObject[][] = [];
  for await (const page of list!.pages) pages.push(page);
  return pages;
}

const names = (pages: KubeObject[][]): Array<string | undefined> => pages.flat().map((o) => o.metadata?.name);

describe("pages of an unchanged list", () => {
  it("are the same shared, frozen arrays on every read, and new ones for pages with an entry changed, added or gone", async () => {
    const { store } = setup();
    const count = LIST_PAGE_SIZE * 2 + 10;
    for (let i = 0; i < count; i++) await store.create("default", widget(`w-${String(i).padStart(4, "0")}`, { color: "red" }));
    const first = await pagesOf(store);
    expect(first.map((page) => page.length)).toEqual([LIST_PAGE_SIZE, LIST_PAGE_SIZE, 10]);
    const again = await pagesOf(store);
    for (let i = 0; i < first.length; i++) {
      expect(again[i]).toBe(first[i]);
      expect(Object.isFrozen(again[i])).toBe(true);
    }

    // An update in the second page: the first and last pages stay, the second is read anew with the new object.
    await store.update("default", "w-0600", { ...widget("w-0600", { color: "blue" }), apiVersion: "v1", kind: "Widget" });
    const updated = await pagesOf(store);
    expect(updated[0]).toBe(first[0]);
    expect(updated[1]).not.toBe(first[1]);
    expect(updated[1]!.find((o) => o.metadata?.name === "w-0600")?.spec).toEqual({ color: "blue" });
    expect(updated[2]).toBe(first[2]);

    // A delete in the first page shifts every page after it by one: all are read anew, none is missed or repeated.
    await store.delete("default", "w-0003");
    const shifted = await pagesOf(store);
    expect(names(shifted)).toEqual(
      Array.from({ length: count }, (_, i) => `w-${String(i).padStart(4, "0")}`).filter((name) => name !== "w-0003"),
    );
    for (let i = 0; i < shifted.length; i++) expect(shifted[i]).not.toBe(updated[i]);
    expect(shifted.flat().find((o) => o.metadata?.name === "w-0600")?.spec).toEqual({ color: "blue" });
  });

  it("filtered by a selector are arrays of the request's own", async () => {
    const { store } = setup();
    for (let i = 0; i < 20; i++) await store.create("default", widget(`w-${i}`, { labels: { parity: i % 2 === 0 ? "even" : "odd" } }));
    const [even] = await pagesOf(store, "parity=even");
    expect(even).toHaveLength(10);
    expect(Object.isFrozen(even)).toBe(false);
    even!.pop();
    expect((await pagesOf(store, "parity=even"))[0]).toHaveLength(10);
  });
});

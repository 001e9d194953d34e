import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import type { KeyValue } from "../storage/types.js";
import { DecodedValues, freezeJson } from "./decoded-values.js";

function counting(): { decodes: KeyValue[]; cache: DecodedValues } {
  const decodes: KeyValue[] = [];
  const cache = new DecodedValues((kv) => {
    decodes.push(kv);
    const object = JSON.parse(kv.value) as KubeObject;
    (object.metadata ??= {}).resourceVersion = String(kv.modRevision);
    return object;
  }, 8);
  return { decodes, cache };
}

const entry = (value: object, modRevision: number, key = "/registry/configmaps/default/a"): KeyValue => ({
  key,
  value: JSON.stringify(value),
  createRevision: 1,
  modRevision,
});

describe("DecodedValues", () => {
  it("decodes a stored value once, whether read back as the same entry or as a new entry with the same bytes", () => {
    const { decodes, cache } = counting();
    const first = entry({ data: { a: "1" } }, 5);
    const object = cache.get(first);
    expect(cache.get(first)).toBe(object);
    // A storage that answers every read with a new entry (SQLite, etcd).
    expect(cache.get({ ...first })).toBe(object);
    expect(decodes).toHaveLength(1);
    expect(object).toEqual({ data: { a: "1" }, metadata: { resourceVersion: "5" } });
  });

  it("never serves the decoding of other bytes or another revision under the same key", () => {
    const { decodes, cache } = counting();
    cache.get(entry({ data: { a: "1" } }, 5));
    // Written again (by this server or another one on the same storage): a new revision.
    expect(cache.get(entry({ data: { a: "2" } }, 6)).data).toEqual({ a: "2" });
    // Same bytes at a new revision (a write that changed nothing stored but the revision).
    expect(cache.get(entry({ data: { a: "2" } }, 7)).metadata?.resourceVersion).toBe("7");
    // Same revision with other bytes (a storage wiped and written again from revision 1).
    expect(cache.get(entry({ data: { a: "3" } }, 7)).data).toEqual({ a: "3" });
    expect(decodes).toHaveLength(4);
  });

  it("gives a write its start frozen to the leaves, and watchers the same shared object", () => {
    const { cache } = counting();
    const kv = entry({ metadata: { labels: { a: "1" } }, data: { list: [{ x: 1 }] } }, 9);
    const frozen = cache.frozen(kv);
    expect(cache.get(kv)).toBe(frozen);
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.isFrozen(frozen.metadata?.labels)).toBe(true);
    const list = (frozen["data"] as { list: Array<{ x: number }> }).list;
    expect(Object.isFrozen(list)).toBe(true);
    expect(Object.isFrozen(list[0])).toBe(true);
    expect(() => {
      list[0]!.x = 2;
    }).toThrow(TypeError);
  });

  it("freezes every level of a deeply nested value without recursion", () => {
    let value: Record<string, unknown> = {};
    const root = value;
    for (let i = 0; i < 20_000; i++) {
      const next: Record<string, unknown> = {};
      value["a"] = [next];
      value = next;
    }
    freezeJson(root);
    expect(Object.isFrozen(value)).toBe(true);
  });
});

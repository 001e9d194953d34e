import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SortedKeys } from "./sorted-keys.js";

/** What `from` must answer: the model's keys at or above (above, with `exclusive`) `start`, in code-unit order. */
const expectedFrom = (model: Set<string>, start: string, exclusive: boolean): string[] =>
  [...model].filter((key) => (exclusive ? key > start : key >= start)).sort();

const operation = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), key: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant("delete" as const), key: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant("from" as const), key: fc.string({ maxLength: 4 }), exclusive: fc.boolean() }),
);

describe("SortedKeys", () => {
  it("answers every add, delete and range scan as a sorted set would, across chunk splits and merges", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 9 }), fc.array(operation, { maxLength: 400 }), (maxChunk, operations) => {
        const keys = new SortedKeys(maxChunk);
        const model = new Set<string>();
        for (const op of operations) {
          if (op.kind === "add") {
            expect(keys.add(op.key)).toBe(!model.has(op.key));
            model.add(op.key);
          } else if (op.kind === "delete") {
            expect(keys.delete(op.key)).toBe(model.has(op.key));
            model.delete(op.key);
          } else {
            expect([...keys.from(op.key, op.exclusive)]).toEqual(expectedFrom(model, op.key, op.exclusive));
          }
          expect(keys.size).toBe(model.size);
        }
        expect([...keys.from("")]).toEqual([...model].sort());
      }),
      { numRuns: 300 },
    );
  });

  it("keeps keys of tens of thousands in order when they arrive in any order and most are deleted again", () => {
    const keys = new SortedKeys();
    const all = Array.from({ length: 30_000 }, (_, i) => `/registry/pods/ns-${i % 7}/pod-${(i * 7919) % 30_000}`);
    for (const key of all) keys.add(key);
    const unique = [...new Set(all)].sort();
    expect([...keys.from("")]).toEqual(unique);
    for (let i = 0; i < unique.length; i++) if (i % 10 !== 0) keys.delete(unique[i]!);
    const left = unique.filter((_, i) => i % 10 === 0);
    expect(keys.size).toBe(left.length);
    expect([...keys.from("/registry/pods/ns-3/")].filter((key) => key.startsWith("/registry/pods/ns-3/"))).toEqual(
      left.filter((key) => key.startsWith("/registry/pods/ns-3/")),
    );
    expect([...keys.from(left[100]!, true)][0]).toBe(left[101]);
  });

  it("refuses a chunk size it could not split", () => {
    expect(() => new SortedKeys(2)).toThrow(/chunk size 2/);
  });
});

import { describe, expect, it } from "vitest";
import { FieldSet, difference, intersection, sameSet, union, withoutTopLevel } from "./field-set-trie.js";
import { compare, removeItems, toFieldSet } from "./field-set.js";
import { fromFieldsV1, sortPaths, toFieldsV1 } from "./fields-v1.js";

const paths = (set: FieldSet): string[] => sortPaths(set).map((path) => path.join("/"));

describe("field sets as tries (structured-merge-diff's fieldpath.Set)", () => {
  const a = FieldSet.of(["f:spec", "f:replicas"], ["f:spec"], ["f:metadata", "f:labels", "f:app"]);
  const b = FieldSet.of(["f:spec", "f:replicas"], ["f:status", "f:phase"]);

  it("holds paths, members apart from the paths that only lead to them", () => {
    expect(a.has(["f:spec"])).toBe(true);
    expect(a.has(["f:metadata"])).toBe(false);
    expect(a.has(["f:metadata", "f:labels", "f:app"])).toBe(true);
    expect(a.size).toBe(3);
    expect(new FieldSet().isEmpty()).toBe(true);
  });

  it("does the set algebra without changing its operands", () => {
    expect(paths(union(a, b))).toEqual(["f:metadata/f:labels/f:app", "f:spec", "f:spec/f:replicas", "f:status/f:phase"]);
    expect(paths(difference(a, b))).toEqual(["f:metadata/f:labels/f:app", "f:spec"]);
    expect(paths(intersection(a, b))).toEqual(["f:spec/f:replicas"]);
    expect(paths(withoutTopLevel(a, (element) => element === "f:metadata"))).toEqual(["f:spec", "f:spec/f:replicas"]);
    // A difference that empties a subset leaves no empty subset behind.
    expect(difference(b, b).isEmpty()).toBe(true);
    expect(difference(b, b).children.size).toBe(0);
    expect(sameSet(a, FieldSet.of(["f:metadata", "f:labels", "f:app"], ["f:spec", "f:replicas"], ["f:spec"]))).toBe(true);
    expect(sameSet(a, b)).toBe(false);
    expect(a.size).toBe(3);
    expect(b.size).toBe(2);
  });

  it("round-trips FieldsV1", () => {
    const fields = { "f:metadata": { "f:labels": { "f:app": {} } }, "f:spec": { ".": {}, "f:replicas": {} } };
    expect(toFieldsV1(fromFieldsV1(fields))).toEqual(fields);
    expect(sameSet(fromFieldsV1(toFieldsV1(a)), a)).toBe(true);
  });

  it("stays linear in the depth of an object nested 10,000 levels", () => {
    const depth = 10_000;
    let before: Record<string, unknown> = { a: "old" };
    let after: Record<string, unknown> = { a: "new" };
    for (let level = 1; level < depth; level++) {
      before = { a: before };
      after = { a: after };
    }
    const owned = toFieldSet(after, undefined);
    // Every level is a member (map keys of an unknown object), the leaf included.
    expect(owned.size).toBe(depth);
    const changed = compare(before, after, undefined);
    expect(changed.modified.size).toBe(1);
    expect(changed.added.isEmpty() && changed.removed.isEmpty()).toBe(true);
    const fieldsV1 = toFieldsV1(owned);
    expect(sameSet(fromFieldsV1(fieldsV1), owned)).toBe(true);
    // Removing the leaf empties every map above it.
    expect(removeItems(after, changed.modified, undefined)).toBeUndefined();
  });
});

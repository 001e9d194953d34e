import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ControlPlaneError } from "../api/errors/control-plane-error.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

/**
 * apimachinery's `mergeItem` test type (strategicpatch/patch_test.go) as an OpenAPI schema:
 * mergingList merges by name, mergingIntList merges as a set, the non-merging lists replace.
 */
const mergeItemRef: JSONSchemaProps = { $ref: "#/components/schemas/mergeItem" };
const mergeItem: JSONSchemaProps = {
  type: "object",
  properties: {
    name: { type: "string" },
    value: { type: "string" },
    other: { type: "string" },
    mergingList: { type: "array", items: mergeItemRef, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
    nonMergingList: { type: "array", items: mergeItemRef },
    mergingIntList: { type: "array", items: { type: "integer" }, "x-kubernetes-patch-strategy": "merge" },
    nonMergingIntList: { type: "array", items: { type: "integer" } },
    mergeItemPtr: { type: "array", items: mergeItemRef, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
    simpleMap: { type: "object", additionalProperties: { type: "string" } },
    replacingItem: { type: "object", "x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-patch-strategy": "replace" },
    retainKeysMap: {
      type: "object",
      "x-kubernetes-patch-strategy": "retainKeys",
      properties: {
        name: { type: "string" },
        value: { type: "string" },
        other: { type: "string" },
        simpleMap: { type: "object", additionalProperties: { type: "string" } },
        mergingIntList: { type: "array", items: { type: "integer" }, "x-kubernetes-patch-strategy": "merge" },
        mergingList: { type: "array", items: mergeItemRef, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
        nonMergingList: { type: "array", items: mergeItemRef },
      },
    },
    retainKeysMergingList: {
      type: "array",
      items: mergeItemRef,
      "x-kubernetes-patch-strategy": "merge,retainKeys",
      "x-kubernetes-patch-merge-key": "name",
    },
  },
};
const definitions = { mergeItem };

interface Case {
  description: string;
  original?: unknown;
  patch: unknown;
  result?: unknown;
  error?: string;
}

/** Cases ported from upstream: `original` + `twoWay` → `modified` (or `twoWayResult`), and `current` + `threeWay` → `result`. */
const upstreamCases = parse(`
- description: unique scalars when merging lists
  original: {mergingIntList: [1, 2]}
  patch: {mergingIntList: [2, 3]}
  result: {mergingIntList: [1, 2, 3]}
- description: delete map from nested map
  original: {simpleMap: {key1: "1", key2: "1"}}
  patch: {simpleMap: {$patch: delete}}
  result: {simpleMap: {}}
- description: delete all items from merging list
  original: {mergingList: [{name: "1"}, {name: "2"}]}
  patch: {mergingList: [{$patch: replace}]}
  result: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  patch: {mergingList: []}
  result: {mergingList: []}
- description: delete all keys from map
  original: {name: "1", value: "1"}
  patch: {$patch: replace}
  result: {}
- description: add key and delete all keys from map
  original: {name: "1", value: "1"}
  patch: {other: a, $patch: replace}
  result: {other: a}
- description: de-duplicate entries in a merging list
  original: {mergingList: [{name: "1"}, {name: "1"}, {name: "2", value: a}, {name: "3"}, {name: "3"}]}
  patch: {mergingList: [{name: "1", $patch: delete}, {name: "3", $patch: delete}]}
  result: {mergingList: [{name: "1"}, {name: "2", value: a}, {name: "3"}]}
- description: delete all duplicate entries in a merging list
  original: {mergingList: [{name: "1"}, {name: "1"}, {name: "2", value: a}, {name: "3"}, {name: "3"}]}
  patch: {mergingList: [{name: "1", $patch: delete}, {name: "1", $patch: delete}, {name: "3", $patch: delete}, {name: "3", $patch: delete}]}
  result: {mergingList: [{name: "2", value: a}]}
- description: retainKeys map can add a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo}}
  patch: {retainKeysMap: {value: bar}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map can delete a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {value: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map merge an empty map
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {}}
  result: {retainKeysMap: {name: foo, value: a}}
- description: retainKeys list can change a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  patch: {retainKeysMergingList: [{name: foo, value: b}]}
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: b}]}
- description: preserve the order from the patch in a merging list
  original: {mergingList: [{name: "1"}, {name: "2", value: b}, {name: "3"}]}
  patch: {mergingList: [{name: "3", value: c}, {name: "1", value: a}, {name: "2", other: x}]}
  result: {mergingList: [{name: "3", value: c}, {name: "1", value: a}, {name: "2", value: b, other: x}]}
- description: preserve the order from the patch in a merging list 2
  original: {mergingList: [{name: "1"}, {name: "2", value: b}, {name: "3"}]}
  patch: {mergingList: [{name: "3", value: c}, {name: "1", value: a}]}
  result: {mergingList: [{name: "2", value: b}, {name: "3", value: c}, {name: "1", value: a}]}
- description: preserve the order from the patch in a merging int list
  original: {mergingIntList: [1, 2, 3]}
  patch: {mergingIntList: [3, 1, 2]}
  result: {mergingIntList: [3, 1, 2]}
- description: preserve the order from the patch in a partial merging int list
  original: {mergingIntList: [1, 2, 3]}
  patch: {mergingIntList: [3, 1]}
  result: {mergingIntList: [2, 3, 1]}
- description: $setElementOrder contains item that is not present in the list to be merged
  original: {mergingList: [{name: "1"}, {name: "3"}]}
  patch: {$setElementOrder/mergingList: [{name: "3"}, {name: "2"}, {name: "1"}], mergingList: [{name: "3", value: "3"}, {name: "1", value: "1"}]}
  result: {mergingList: [{name: "3", value: "3"}, {name: "1", value: "1"}]}
- description: $setElementOrder contains item that is not present in the int list to be merged
  original: {mergingIntList: [1, 3]}
  patch: {$setElementOrder/mergingIntList: [3, 2, 1]}
  result: {mergingIntList: [3, 1]}
- description: should check if order in $setElementOrder and patch list match
  original: {mergingList: [{name: "1"}, {name: "3"}, {name: "2"}]}
  patch: {$setElementOrder/mergingList: [{name: "1"}, {name: "2"}, {name: "3"}], mergingList: [{name: "3", value: "3"}, {name: "1", value: "1"}]}
  error: doesn't match
- description: should check if order in $setElementOrder and patch int list match
  original: {mergingIntList: [1, 3, 2]}
  patch: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}
  error: doesn't match
- description: missing merge key should error out
  original: {mergingList: [{name: "1", value: a}]}
  patch: {mergingList: [{value: b}]}
  error: does not contain declared merge key
- description: nil original
  patch: {name: "1", value: "1"}
  result: {name: "1", value: "1"}
- description: add field to map with conflict (three-way)
  original: {name: a, other: a}
  patch: {name: "1", value: "1"}
  result: {name: "1", value: "1", other: a}
- description: add field and delete field from map
  original: {name: "1", other: a}
  patch: {name: null, value: "1"}
  result: {value: "1", other: a}
- description: delete field from nested map with conflict
  original: {simpleMap: {key1: a, key2: "1", other: a}}
  patch: {simpleMap: {key1: "1", key2: null}}
  result: {simpleMap: {key1: "1", other: a}}
- description: replace list of scalars with conflict
  original: {nonMergingIntList: [1, 4]}
  patch: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list with conflict
  original: {mergingList: [{name: "1", other: a}, {name: "2", other: b}]}
  patch: {mergingList: [{name: "1", $patch: delete}, {name: "2", $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from empty merging list
  original: {mergingList: []}
  patch: {mergingList: [{name: "1", $patch: delete}, {name: "2", $patch: delete}]}
  result: {mergingList: []}
- description: defined null values should propagate overwrite current fields
  original: {name: a, other: a}
  patch: {name: "1", value: "1", other: null}
  result: {name: "1", value: "1"}
- description: delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: delete all duplicate items in lists of scalars
  original: {mergingIntList: [1, 2, 3, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: add and delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  patch: {$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3], mergingIntList: [4]}
  result: {mergingIntList: [1, 2, 4]}
- description: merge lists of maps
  original: {mergingList: [{name: "1", other: a}, {name: "2", value: "2", other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: "4"}, {name: "1"}, {name: "2"}, {name: "3"}]
    mergingList: [{name: "4", value: "4"}, {name: "3", value: "3"}]
  result: {mergingList: [{name: "4", value: "4"}, {name: "1", other: a}, {name: "2", value: "2", other: b}, {name: "3", value: "3"}]}
- description: merge lists of maps with conflict
  original: {mergingList: [{name: "1", other: a}, {name: "2", value: "3", other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: "1"}, {name: "2"}, {name: "3"}]
    mergingList: [{name: "2", value: "2"}, {name: "3", value: "3"}]
  result: {mergingList: [{name: "1", other: a}, {name: "2", value: "2", other: b}, {name: "3", value: "3"}]}
- description: add map and delete map from merging list
  original: {mergingList: [{name: "1"}, {name: "2", other: b}, {name: "4", other: c}]}
  patch:
    $setElementOrder/mergingList: [{name: "2"}, {name: "3"}]
    mergingList: [{name: "3"}, {name: "1", $patch: delete}]
  result: {mergingList: [{name: "2", other: b}, {name: "4", other: c}, {name: "3"}]}
- description: add map and delete map from merging list with conflict
  original: {mergingList: [{name: "1", other: a}, {name: "4", other: c}]}
  patch:
    $setElementOrder/mergingList: [{name: "2"}, {name: "3"}]
    mergingList: [{name: "2"}, {name: "3"}, {name: "1", $patch: delete}]
  result: {mergingList: [{name: "4", other: c}, {name: "2"}, {name: "3"}]}
- description: delete field from map in merging list
  original: {mergingList: [{name: "1", value: "1", other: a}, {name: "2", value: "2", other: b}]}
  patch: {$setElementOrder/mergingList: [{name: "1"}, {name: "2"}], mergingList: [{name: "1", value: null}]}
  result: {mergingList: [{name: "1", other: a}, {name: "2", value: "2", other: b}]}
- description: replace non merging list nested in merging list with deletion conflict
  original: {mergingList: [{name: "1", other: a, nonMergingList: [{name: "2", value: "2"}]}, {name: "2", other: b}]}
  patch: {$setElementOrder/mergingList: [{name: "1"}, {name: "2"}], mergingList: [{name: "1", nonMergingList: [{name: "1", value: "1"}]}]}
  result: {mergingList: [{name: "1", other: a, nonMergingList: [{name: "1", value: "1"}]}, {name: "2", other: b}]}
- description: add field to map in merging list nested in merging list with value conflict
  original: {mergingList: [{name: "1", other: a, mergingList: [{name: "1", value: a, other: c}, {name: "2", value: b, other: d}]}, {name: "2", other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: "1"}, {name: "2"}]
    mergingList:
      - $setElementOrder/mergingList: [{name: "1"}, {name: "2"}]
        name: "1"
        mergingList: [{name: "1", value: "1"}, {name: "2", value: "2"}]
  result: {mergingList: [{name: "1", other: a, mergingList: [{name: "1", value: "1", other: c}, {name: "2", value: "2", other: d}]}, {name: "2", other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict and reordering
  original: {mergingList: [{name: "1", other: a, mergingList: [{name: "2", value: "2", other: d}]}, {name: "2", other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: "1"}, {name: "2"}]
    mergingList:
      - $setElementOrder/mergingList: [{name: "2"}, {name: "1"}]
        name: "1"
        mergingList: [{name: "1", value: "1"}]
  result: {mergingList: [{name: "1", other: a, mergingList: [{name: "2", value: "2", other: d}, {name: "1", value: "1"}]}, {name: "2", other: b}]}
- description: add map to merging list by pointer
  original: {mergeItemPtr: [{name: "1", other: a}, {name: "3"}]}
  patch: {$setElementOrder/mergeItemPtr: [{name: "1"}, {name: "2"}], mergeItemPtr: [{name: "2"}]}
  result: {mergeItemPtr: [{name: "1", other: a}, {name: "2"}, {name: "3"}]}
- description: add map to merging list by pointer with conflict
  original: {mergeItemPtr: [{name: "3"}]}
  patch: {$setElementOrder/mergeItemPtr: [{name: "1"}, {name: "2"}], mergeItemPtr: [{name: "1"}, {name: "2"}]}
  result: {mergeItemPtr: [{name: "1"}, {name: "2"}, {name: "3"}]}
`) as Case[];

/** Cases for directives upstream's tables leave out or only exercise through patch generation. */
const directiveCases = parse(`
- description: items new to a merging list go before the server-only ones (kubectl patch serviceaccount secrets)
  original: {mergingList: [{name: one}]}
  patch: {mergingList: [{name: two}]}
  result: {mergingList: [{name: two}, {name: one}]}
- description: $retainKeys drops the keys it does not list
  original: {retainKeysMap: {name: foo, value: a, other: b}}
  patch: {retainKeysMap: {$retainKeys: [name, value], value: c}}
  result: {retainKeysMap: {name: foo, value: c}}
- description: $retainKeys must list every field the patch sets
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {$retainKeys: [name], value: c}}
  error: invalid patch format of retainKeys
- description: $retainKeys must be a list
  original: {retainKeysMap: {name: foo}}
  patch: {retainKeysMap: {$retainKeys: name}}
  error: invalid patch format of retainKeys
- description: $deleteFromPrimitiveList must be a list
  original: {mergingIntList: [1]}
  patch: {$deleteFromPrimitiveList/mergingIntList: 1}
  error: invalid patch format of primitive list
- description: $retainKeys inside a merging list item
  original: {retainKeysMergingList: [{name: foo, value: a, other: b}, {name: bar, other: c}]}
  patch: {retainKeysMergingList: [{name: foo, $retainKeys: [name, other, value], value: null}]}
  result: {retainKeysMergingList: [{name: foo, other: b}, {name: bar, other: c}]}
- description: $patch replace on a nested map replaces it whole
  original: {simpleMap: {a: "1", b: "2"}}
  patch: {simpleMap: {$patch: replace, c: "3"}}
  result: {simpleMap: {c: "3"}}
- description: $patch merge on a map is the default merge
  original: {simpleMap: {a: "1"}}
  patch: {simpleMap: {$patch: merge, b: "2"}}
  result: {simpleMap: {a: "1", b: "2"}}
- description: $patch replace in a merging list replaces the list
  original: {mergingList: [{name: "1", value: a}, {name: "2"}]}
  patch: {mergingList: [{name: "3", value: c}, {$patch: replace}]}
  result: {mergingList: [{name: "3", value: c}]}
- description: an unknown $patch directive is rejected
  original: {simpleMap: {a: "1"}}
  patch: {simpleMap: {$patch: frobnicate}}
  error: "unknown patch type: \\"frobnicate\\""
- description: $patch merge in a list is rejected like upstream
  original: {mergingList: [{name: "1"}]}
  patch: {mergingList: [{$patch: merge}]}
  error: merging lists cannot yet be specified in the patch
- description: a patch strategy of replace replaces a map
  original: {replacingItem: {a: "1", b: {c: "2"}}}
  patch: {replacingItem: {b: {d: "3"}}}
  result: {replacingItem: {b: {d: "3"}}}
- description: directives in a field the original lacks are applied, not stored
  original: {}
  patch: {mergingList: [{name: "1", value: null, other: a}, {name: "2", $patch: delete}]}
  result: {mergingList: [{name: "1", other: a}]}
- description: unknown fields merge like JSON merge patch
  original: {unknown: {a: [1, 2], b: "x"}}
  patch: {unknown: {a: [3], b: null}}
  result: {unknown: {a: [3]}}
`) as Case[];

describe("applyStrategicMergePatch", () => {
  for (const c of [...upstreamCases, ...directiveCases]) {
    it(c.description, () => {
      const before = structuredClone(c.original);
      const patchBefore = structuredClone(c.patch);
      const apply = () => applyStrategicMergePatch(c.original ?? {}, c.patch, mergeItem, { definitions });
      if (c.error !== undefined) {
        expect(apply).toThrow(ControlPlaneError);
        expect(apply).toThrow(c.error);
      } else {
        expect(apply()).toEqual(c.result);
      }
      expect(c.original).toEqual(before);
      expect(c.patch).toEqual(patchBefore);
    });
  }
});

describe("applyStrategicMergePatch on ObjectMeta", () => {
  const configMapSchema: JSONSchemaProps = {
    type: "object",
    properties: { metadata: { type: "object" }, data: { type: "object", additionalProperties: { type: "string" } } },
  };
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "demo",
      finalizers: ["a.example.com/x", "b.example.com/y"],
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name: "owner-1", uid: "u1" },
        { apiVersion: "v1", kind: "ConfigMap", name: "owner-2", uid: "u2" },
      ],
      labels: { app: "demo", tier: "web" },
    },
    data: { a: "1", b: "2" },
  };

  it("merges finalizers as a set", () => {
    const out = applyStrategicMergePatch<typeof configMap>(
      configMap,
      { metadata: { finalizers: ["c.example.com/z", "a.example.com/x"] } },
      configMapSchema,
    );
    expect(out.metadata.finalizers).toEqual(["c.example.com/z", "a.example.com/x", "b.example.com/y"]);
  });

  it("removes a finalizer with $deleteFromPrimitiveList", () => {
    const out = applyStrategicMergePatch<typeof configMap>(
      configMap,
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["a.example.com/x"] } },
      configMapSchema,
    );
    expect(out.metadata.finalizers).toEqual(["b.example.com/y"]);
  });

  it("merges ownerReferences by uid and deletes by uid", () => {
    const out = applyStrategicMergePatch<typeof configMap>(
      configMap,
      {
        metadata: {
          ownerReferences: [
            { uid: "u2", controller: true },
            { uid: "u1", $patch: "delete" },
            { apiVersion: "v1", kind: "ConfigMap", name: "owner-3", uid: "u3" },
          ],
        },
      },
      configMapSchema,
    );
    expect(out.metadata.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "owner-2", uid: "u2", controller: true },
      { apiVersion: "v1", kind: "ConfigMap", name: "owner-3", uid: "u3" },
    ]);
  });

  it("applies kubectl apply's patch shape: data merge plus last-applied annotation", () => {
    const out = applyStrategicMergePatch<typeof configMap & { metadata: { annotations?: Record<string, string> } }>(
      configMap,
      {
        data: { b: null, c: "3" },
        metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" }, labels: { tier: null } },
      },
      configMapSchema,
    );
    expect(out.data).toEqual({ a: "1", c: "3" });
    expect(out.metadata.labels).toEqual({ app: "demo" });
    expect(out.metadata.annotations).toEqual({ "kubectl.kubernetes.io/last-applied-configuration": "{}" });
  });

  it("rejects a patch that is not an object with BadRequest", () => {
    expect(() => applyStrategicMergePatch(configMap, [{ op: "add" }], configMapSchema)).toThrow(
      expect.objectContaining({ code: "BadRequest" }) as Error,
    );
  });
});

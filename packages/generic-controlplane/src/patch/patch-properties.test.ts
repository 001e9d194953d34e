import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { applyJsonPatch } from "./json-patch.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const key = fc.constantFrom("a", "b", "c", "d");
const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom("x", "y"), fc.boolean());
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, tie("value"), { maxKeys: 3 })),
})).value;
const document = fc.dictionary(key, value, { maxKeys: 4 });
const patch = fc.dictionary(key, fc.oneof(value, fc.constant(null)), { maxKeys: 4 });

/** A schema that declares nothing about the fields, so no merge keys apply anywhere. */
const noPatchMeta: JSONSchemaProps = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

describe("patch properties", () => {
  it("strategic merge without patch metadata or directives is JSON merge patch", () => {
    fc.assert(
      fc.property(document, patch, (doc, p) => {
        expect(applyStrategicMergePatch(doc, p, noPatchMeta)).toEqual(applyMergePatch(doc, p));
      }),
      { numRuns: 300 },
    );
  });

  it("merge patch is idempotent and leaves its inputs alone", () => {
    fc.assert(
      fc.property(document, patch, (doc, p) => {
        const before = structuredClone(doc);
        const once = applyMergePatch(doc, p);
        expect(applyMergePatch(once, p)).toEqual(once);
        expect(doc).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it("a merging list merged with itself is unchanged (set semantics)", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" }, v: { type: "integer" } } },
          "x-kubernetes-patch-strategy": "merge",
          "x-kubernetes-patch-merge-key": "name",
        },
      },
    };
    const items = fc.uniqueArray(fc.record({ name: fc.constantFrom("p", "q", "r", "s"), v: fc.integer({ min: 0, max: 3 }) }), {
      selector: (i) => i.name,
      maxLength: 4,
    });
    fc.assert(
      fc.property(items, (list) => {
        expect(applyStrategicMergePatch({ items: list }, { items: list }, schema)).toEqual({ items: list });
      }),
      { numRuns: 200 },
    );
  });

  it("a JSON patch replacing the root with a document yields that document", () => {
    fc.assert(
      fc.property(document, document, (doc, replacement) => {
        expect(applyJsonPatch(doc, [{ op: "replace", path: "", value: replacement }])).toEqual(replacement);
      }),
      { numRuns: 100 },
    );
  });
});

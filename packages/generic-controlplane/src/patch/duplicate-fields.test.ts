import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findDuplicateFields, mayHaveDuplicateJsonKeys, scanJsonFields } from "./duplicate-fields.js";

// Keys and strings with the characters that could fool a key count: quotes, backslashes, colons.
const trickyString = fc.string({ unit: fc.constantFrom("a", "b", '"', "\\", ":", " ", "{", "}", ",", "é", "\n") });
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.constant(null), fc.boolean(), fc.integer(), trickyString, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(trickyString, tie("value"), { maxKeys: 5 }),
})).object;
const indent = fc.constantFrom(undefined, 1, "\t");

describe("mayHaveDuplicateJsonKeys", () => {
  it("answers false for every JSON text without duplicate keys, as the full scan does", () => {
    fc.assert(
      fc.property(json, indent, (value, space) => {
        const text = JSON.stringify(value, null, space);
        expect(scanJsonFields(text)?.some((field) => field.duplicate)).toBe(false);
        expect(mayHaveDuplicateJsonKeys(text, JSON.parse(text))).toBe(false);
      }),
    );
  });

  it("answers true whenever a text names a key twice, however deep", () => {
    fc.assert(
      fc.property(json, trickyString, fc.nat(), indent, (value, key, where, space) => {
        // Spell `key` twice in one object somewhere inside the text.
        const objects: Record<string, unknown>[] = [];
        const collect = (v: unknown): void => {
          if (v === null || typeof v !== "object") return;
          if (!Array.isArray(v)) objects.push(v as Record<string, unknown>);
          for (const child of Object.values(v)) collect(child);
        };
        collect(value);
        const target = objects[where % objects.length] as Record<string, unknown>;
        target[key] = "__first__";
        const marker = JSON.stringify(key);
        const text = JSON.stringify(value, null, space).replace(
          `${marker}:${space === undefined ? "" : " "}"__first__"`,
          `${marker}: 1, ${marker}: 2`,
        );
        expect(findDuplicateFields(text).length).toBeGreaterThan(0);
        expect(mayHaveDuplicateJsonKeys(text, JSON.parse(text))).toBe(true);
      }),
    );
  });

  it("is not fooled by escaped quotes and colons inside strings", () => {
    const text = String.raw`{"a\"":"x\\","b":"\":\"c\":","c\\":{"d":"\\\""}}`;
    expect(mayHaveDuplicateJsonKeys(text, JSON.parse(text))).toBe(false);
    const duplicated = String.raw`{"a\"":"x\\","b":"\":\"c\":","b":{"d":"\\\""}}`;
    expect(mayHaveDuplicateJsonKeys(duplicated, JSON.parse(duplicated))).toBe(true);
  });

  it("counts a parsed value that lost a field (a decoded null) as a possible duplicate, so the full scan decides", () => {
    const text = '{"a":null,"b":1}';
    const parsed = JSON.parse(text) as Record<string, unknown>;
    delete parsed.a;
    expect(mayHaveDuplicateJsonKeys(text, parsed)).toBe(true);
  });
});

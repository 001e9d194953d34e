import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatLabelSelector, parseLabelSelector, type LabelRequirement } from "./labels.js";
import { parseFieldSelector } from "./fields.js";

const token = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?$/);
const key = fc.oneof(
  token,
  fc.tuple(token, token).map(([p, n]) => `${p.replace(/[._]/g, "")}.io/${n}`),
);
const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({ key, operator: fc.constantFrom<"=" | "==" | "!=">("=", "==", "!="), values: fc.tuple(token) }),
  fc.record({
    key,
    operator: fc.constantFrom<"in" | "notin">("in", "notin"),
    values: fc.uniqueArray(token, { minLength: 1, maxLength: 3 }).map((v) => [...v].sort()),
  }),
  fc.record({ key, operator: fc.constantFrom<"exists" | "!">("exists", "!"), values: fc.constant([] as string[]) }),
);
const labels = fc.dictionary(key, token, { maxKeys: 4 });

/** Reference semantics of one requirement, written independently of the parser. */
function holds(r: LabelRequirement, l: Record<string, string>): boolean {
  const present = Object.hasOwn(l, r.key);
  const value = l[r.key];
  if (r.operator === "exists") return present;
  if (r.operator === "!") return !present;
  const inSet = present && r.values.includes(value ?? "");
  return r.operator === "!=" || r.operator === "notin" ? !inSet : inSet;
}

describe("label selector properties", () => {
  it("formatting then parsing keeps the requirements and their meaning", () => {
    fc.assert(
      fc.property(fc.array(requirement, { minLength: 1, maxLength: 4 }), labels, (requirements, objectLabels) => {
        const text = formatLabelSelector({ requirements, empty: false, matches: () => true });
        const parsed = parseLabelSelector(text);
        expect(parsed.requirements).toEqual(requirements);
        expect(parsed.matches(objectLabels)).toBe(requirements.every((r) => holds(r, objectLabels)));
      }),
      { numRuns: 300 },
    );
  });

  it("whitespace around tokens does not change a selector", () => {
    fc.assert(
      fc.property(fc.array(requirement, { minLength: 1, maxLength: 3 }), (requirements) => {
        const text = formatLabelSelector({ requirements, empty: false, matches: () => true });
        const spaced = text.replace(/,/g, " , ").replace(/(!=|==|=)/g, " $1 ");
        expect(parseLabelSelector(spaced).requirements).toEqual(parseLabelSelector(text).requirements);
      }),
      { numRuns: 200 },
    );
  });

  it("never throws anything but a 400 on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (input) => {
        try {
          parseLabelSelector(input);
        } catch (error) {
          expect(error).toMatchObject({ code: "BadRequest" });
        }
        try {
          parseFieldSelector(input, ["metadata.name"]);
        } catch (error) {
          expect(error).toMatchObject({ code: "BadRequest" });
        }
      }),
      { numRuns: 500 },
    );
  });

  it("field selector values round-trip through escaping", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (value) => {
        const escaped = value.replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/=/g, "\\=");
        const selector = parseFieldSelector(`metadata.name=${escaped}`);
        expect(selector.matches({ "metadata.name": value })).toBe(true);
        expect(selector.requiredValue("metadata.name")).toBe(value);
      }),
      { numRuns: 300 },
    );
  });
});

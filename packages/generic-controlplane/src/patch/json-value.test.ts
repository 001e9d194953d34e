import { describe, expect, it } from "vitest";
import { goSprintValue } from "./json-value.js";

describe("goSprintValue", () => {
  it.each([
    [{ immutable: "yes" }, "map[immutable:yes]"],
    [{ b: [1, "x", null], a: { d: true, c: 1.5 } }, "map[a:map[c:1.5 d:true] b:[1 x <nil>]]"],
    [{ n: 1e20, f: 1234567.5, s: 0.00001 }, "map[f:1.2345675e+06 n:1e+20 s:1e-05]"],
    [{ big: 1e300 }, "map[big:1e+300]"],
    [[], "[]"],
  ])("prints %j as Go's Sprintf does", (value, printed) => {
    expect(goSprintValue(value)).toBe(printed);
  });
});

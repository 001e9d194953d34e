import { describe, expect, it } from "vitest";
import { age, humanDuration, renderTable } from "./table.js";

describe("renderTable", () => {
  it("pads columns like kubectl get", () => {
    expect(
      renderTable(
        ["name", "phase", "age"],
        [
          ["kube-apiserver", "Allocated", "5s"],
          ["cni", "Conflict", "12m"],
        ],
      ),
    ).toBe("NAME             PHASE       AGE\nkube-apiserver   Allocated   5s\ncni              Conflict    12m\n");
  });
});

describe("humanDuration", () => {
  it("prints ages as kubectl does", () => {
    const s = 1000;
    expect(
      [
        0,
        45 * s,
        119 * s,
        150 * s,
        300 * s,
        90 * 60 * s,
        5 * 3600 * s,
        (5 * 3600 + 600) * s,
        30 * 3600 * s,
        3 * 86400 * s,
        (3 * 86400 + 7200) * s,
        100 * 86400 * s,
        800 * 86400 * s,
      ].map(humanDuration),
    ).toEqual(["0s", "45s", "119s", "2m30s", "5m", "90m", "5h", "5h10m", "30h", "3d", "3d2h", "100d", "2y70d"]);
    expect(age("2026-01-01T00:00:00Z", Date.parse("2026-01-01T00:01:05Z"))).toBe("65s");
    expect(age(undefined)).toBe("<unknown>");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BalloonError } from "./errors.js";
import { Quantity } from "@kubekit/apimachinery";
import {
  clampResourceList,
  fits,
  formatResourceList,
  isResourceName,
  maxResourceLists,
  parseResourceList,
  resourceList,
  resourceListStrings,
  resourceListsEqual,
  shortfalls,
  subtractResourceLists,
  sumResourceLists,
  type ResourceList,
} from "./resource-list.js";

const q = (text: string) => Quantity.parse(text);

describe("reading resource lists", () => {
  it("reads manifest objects, including YAML numbers, into canonical quantities", () => {
    const list = resourceList({ cpu: 1.5, memory: "1.5Gi", "nvidia.com/gpu": 2, "hugepages-2Mi": "4Mi" });
    expect(resourceListStrings(list)).toEqual({ cpu: "1500m", memory: "1536Mi", "nvidia.com/gpu": "2", "hugepages-2Mi": "4Mi" });
    expect(JSON.stringify(list)).toBe('{"cpu":"1500m","memory":"1536Mi","nvidia.com/gpu":"2","hugepages-2Mi":"4Mi"}');
  });

  // apimachinery TestJSONWhitespace: the API server trims spaces around a quantity in JSON.
  it.each([
    [" 1", "1"],
    ["1 ", "1"],
    ["10", "10"],
    [" -1", "-1"],
  ])("trims %j like the API server's JSON decoding", (text, want) => {
    expect(resourceList({ cpu: text }).cpu?.toString()).toBe(want);
  });

  it("parses the command-line spelling and prints it back", () => {
    const list = parseResourceList("cpu=8, memory=32Gi,ephemeral-storage=100G");
    expect(formatResourceList(list)).toBe("cpu=8,memory=32Gi,ephemeral-storage=100G");
    expect(parseResourceList("")).toEqual({});
  });

  it("names the resource and the bad value in its errors", () => {
    expect(() => parseResourceList("cpu=8,memory=32GB", "--allocatable")).toThrow(
      /--allocatable: resource "memory": invalid quantity "32GB"/,
    );
    expect(() => parseResourceList("cpu")).toThrow(expect.objectContaining({ code: "invalid-resource-list" }));
    expect(() => parseResourceList("cpu=1,cpu=2")).toThrow(/given twice/);
    expect(() => resourceList({ "bad name!": "1" })).toThrow(BalloonError);
    expect(() => resourceList({ cpu: "1K" })).toThrow(expect.objectContaining({ code: "quantity-suffix" }));
  });

  it("accepts qualified names and rejects malformed ones", () => {
    for (const name of ["cpu", "memory", "hugepages-1Gi", "example.com/foo", "pods"]) expect(isResourceName(name)).toBe(true);
    for (const name of ["", "/cpu", "Example.com/foo", "a/b/c", "-cpu", "x".repeat(64)]) expect(isResourceName(name)).toBe(false);
  });
});

describe("resource list arithmetic", () => {
  const node = resourceList({ cpu: "8", memory: "32Gi", pods: "110" });
  const podA = resourceList({ cpu: "500m", memory: "1Gi" });
  const podB = resourceList({ cpu: "1.5", memory: "512Mi", "nvidia.com/gpu": "1" });

  it("sums over the union of names", () => {
    expect(resourceListStrings(sumResourceLists(podA, podB))).toEqual({ cpu: "2", memory: "1536Mi", "nvidia.com/gpu": "1" });
    expect(sumResourceLists()).toEqual({});
  });

  it("subtracts per name, going negative for names only on the right", () => {
    expect(resourceListStrings(subtractResourceLists(node, podB))).toEqual({
      cpu: "6500m",
      memory: "32256Mi",
      pods: "110",
      "nvidia.com/gpu": "-1",
    });
  });

  it("fits only when every requested resource is available, reporting what is short", () => {
    expect(fits(podA, node)).toBe(true);
    expect(fits(podB, node)).toBe(false);
    expect(shortfalls(podB, node)).toEqual([{ resource: "nvidia.com/gpu", requested: q("1"), available: Quantity.zero() }]);
    expect(fits(resourceList({ cpu: "8001m" }), node)).toBe(false);
  });

  it("takes the per-resource maximum", () => {
    expect(resourceListStrings(maxResourceLists(podA, podB))).toEqual({ cpu: "1500m", memory: "1Gi", "nvidia.com/gpu": "1" });
  });

  it("clamps into bounds and rejects crossed bounds", () => {
    const clamped = clampResourceList(resourceList({ cpu: "10", memory: "1Mi", pods: "5" }), {
      min: resourceList({ memory: "64Mi" }),
      max: resourceList({ cpu: "8" }),
    });
    expect(resourceListStrings(clamped)).toEqual({ cpu: "8", memory: "64Mi", pods: "5" });
    expect(() => clampResourceList(podA, { min: resourceList({ cpu: "2" }), max: resourceList({ cpu: "1" }) })).toThrow(
      /minimum 2 exceeds maximum 1/,
    );
  });
});

describe("resource list properties", () => {
  const names = ["cpu", "memory", "ephemeral-storage", "example.com/widget"];
  const amount = fc.bigInt({ min: 0n, max: 10n ** 20n }).map((nanos) => Quantity.fromNanos(nanos));
  const list = fc.dictionary(fc.constantFrom(...names), amount, { maxKeys: names.length }) as fc.Arbitrary<ResourceList>;

  it("subtracting what was added gives the original back", () => {
    fc.assert(
      fc.property(list, list, (a, b) => {
        expect(resourceListsEqual(subtractResourceLists(sumResourceLists(a, b), b), a)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("fits exactly when available minus requested is nowhere negative", () => {
    fc.assert(
      fc.property(list, list, (requests, available) => {
        const left = subtractResourceLists(available, requests);
        const anyNegative = Object.keys(requests).some((name) => (left[name]?.sign() ?? 0) < 0);
        expect(fits(requests, available)).toBe(!anyNegative);
      }),
      { numRuns: 200 },
    );
  });

  it("clamping lands inside the bounds and leaves in-bound amounts alone", () => {
    fc.assert(
      fc.property(list, list, list, (value, lowRaw, highRaw) => {
        const high = sumResourceLists(lowRaw, highRaw);
        const low = lowRaw;
        const clamped = clampResourceList(value, { min: low, max: high });
        for (const [name, amountValue] of Object.entries(clamped)) {
          const original = value[name] as Quantity;
          if (low[name]) expect(amountValue.cmp(low[name])).toBeGreaterThanOrEqual(0);
          if (high[name]) expect(amountValue.cmp(high[name])).toBeLessThanOrEqual(0);
          const inside = (!low[name] || original.cmp(low[name]) >= 0) && (!high[name] || original.cmp(high[name]) <= 0);
          if (inside) expect(amountValue.equals(original)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

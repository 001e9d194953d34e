import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { toTable } from "./table.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";

const now = new Date("2026-01-10T00:00:00Z");
const cm = (name: string, data: Record<string, string>, created = "2026-01-09T23:55:00Z"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", resourceVersion: "7", labels: { app: "x" }, creationTimestamp: created },
  data,
});

const configmaps: Pick<ResourceDefinition, "printerColumns"> = {
  printerColumns: [
    { name: "Data", type: "integer", description: "Number of keys", cell: (o) => Object.keys((o.data as object | undefined) ?? {}).length },
    { name: "Age", type: "date", cell: (o) => o.metadata?.creationTimestamp },
    { name: "Keys", type: "string", priority: 1, cell: (o) => Object.keys((o.data as object | undefined) ?? {}).join(",") },
  ],
};

describe("toTable", () => {
  it("defaults to Name and Age columns with PartialObjectMetadata rows", () => {
    const table = toTable({}, [cm("a", {})], { now, listMeta: { resourceVersion: "9", continue: "t" } });
    expect(table.kind).toBe("Table");
    expect(table.apiVersion).toBe("meta.k8s.io/v1");
    expect(table.metadata).toEqual({ resourceVersion: "9", continue: "t" });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Age", "string", "", 0],
    ]);
    expect(table.rows).toEqual([
      {
        cells: ["a", "5m"],
        object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: cm("a", {}).metadata },
      },
    ]);
  });

  it("adds printer columns after Name, with wide-only columns flagged by priority", () => {
    const table = toTable(configmaps, [cm("a", { x: "1", y: "2" }), cm("b", {}, "2026-01-07T00:00:00Z")], { now });
    expect(table.columnDefinitions.map((c) => `${c.name}/${c.priority}`)).toEqual(["Name/0", "Data/0", "Age/0", "Keys/1"]);
    expect(table.rows.map((r) => r.cells)).toEqual([
      ["a", 2, "5m", "x,y"],
      ["b", 0, "3d", ""],
    ]);
    expect(toTable(configmaps, [cm("a", {})], { now, wide: false }).columnDefinitions.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
  });

  it("carries the whole object or nothing on request, and a single object's resourceVersion", () => {
    const object = cm("a", {});
    expect(toTable({}, object, { now, includeObject: "Object" }).rows[0]?.object).toBe(object);
    expect(toTable({}, object, { now, includeObject: "None" }).rows[0]).not.toHaveProperty("object");
    expect(toTable({}, object, { now }).metadata).toEqual({ resourceVersion: "7" });
  });

  it("shows a failing or missing cell as null", () => {
    const table = toTable(
      {
        printerColumns: [
          {
            name: "Boom",
            type: "string",
            cell: () => {
              throw new Error("x");
            },
          },
        ],
      },
      [cm("a", {})],
      { now },
    );
    expect(table.rows[0]?.cells).toEqual(["a", null]);
  });
});

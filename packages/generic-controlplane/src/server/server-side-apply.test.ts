import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { applyConfiguration } from "./server-side-apply.js";

const schema: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" } } },
        },
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        args: { type: "array", items: { type: "string" } },
      },
    },
  },
};

const base = { manager: "", force: false, apiVersion: "example.com/v1", subresource: "", now: "2026-01-01T00:00:00Z", schema };
const widget = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec });

describe("applyConfiguration", () => {
  it("merges associative lists item by item between managers and records k:/v: ownership", () => {
    const a1 = applyConfiguration(undefined, widget({ ports: [{ name: "a", port: 1 }, { name: "b", port: 2 }], tags: ["x"] }), { ...base, manager: "a" });
    expect(a1.metadata?.managedFields?.[0]?.fieldsV1).toEqual({
      "f:spec": {
        ".": {},
        "f:ports": { ".": {}, 'k:{"name":"a"}': { ".": {}, "f:name": {}, "f:port": {} }, 'k:{"name":"b"}': { ".": {}, "f:name": {}, "f:port": {} } },
        "f:tags": { ".": {}, 'v:"x"': {} },
      },
    });
    const b1 = applyConfiguration(a1, widget({ ports: [{ name: "c", port: 3 }], tags: ["y"] }), { ...base, manager: "b" });
    expect(b1["spec"]).toEqual({ ports: [{ name: "a", port: 1 }, { name: "b", port: 2 }, { name: "c", port: 3 }], tags: ["x", "y"] });
    const a2 = applyConfiguration(b1, widget({ ports: [{ name: "a", port: 1 }], tags: ["x"] }), { ...base, manager: "a" });
    expect(a2["spec"]).toEqual({ ports: [{ name: "a", port: 1 }, { name: "c", port: 3 }], tags: ["x", "y"] });
  });

  it("conflicts on another manager's item field and replaces atomic lists whole", () => {
    const a1 = applyConfiguration(undefined, widget({ ports: [{ name: "a", port: 1 }], args: ["1", "2"] }), { ...base, manager: "a" });
    expect(() => applyConfiguration(a1, widget({ ports: [{ name: "a", port: 9 }] }), { ...base, manager: "b" })).toThrow(
      'Apply failed with 1 conflict: conflict with "a": .spec.ports[name="a"].port',
    );
    const forced = applyConfiguration(a1, widget({ ports: [{ name: "a", port: 9 }] }), { ...base, manager: "b", force: true });
    expect(forced["spec"]).toMatchObject({ ports: [{ name: "a", port: 9 }] });
    const a2 = applyConfiguration(a1, widget({ ports: [{ name: "a", port: 1 }], args: ["3"] }), { ...base, manager: "a" });
    expect((a2["spec"] as { args: string[] }).args).toEqual(["3"]);
  });
});

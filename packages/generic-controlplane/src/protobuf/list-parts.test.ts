import { describe, expect, it } from "vitest";
import type { KubeList, KubeObject } from "../api/types.js";
import { encodeProtobuf, protobufListParts } from "./codec.js";

function assembled(list: KubeList): Uint8Array {
  const parts = protobufListParts(list)!;
  const items = list.items.map((item) => parts.item(item));
  const head = parts.head(items.reduce((sum, item) => sum + item.length, 0));
  return Buffer.concat([head, ...items, parts.tail]);
}

const configMap = (name: string, size: number): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace: "ns",
    uid: `uid-${name}`,
    resourceVersion: "42",
    creationTimestamp: "2024-01-01T00:00:00Z",
    labels: { b: "2", a: "1" },
  },
  data: { payload: "x".repeat(size) },
});

describe("protobufListParts", () => {
  const lists: Array<[string, KubeList]> = [
    ["an empty list", { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "7" }, items: [] }],
    [
      "small items",
      { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "7" }, items: [configMap("a", 1), configMap("b", 10)] },
    ],
    // Items and bodies whose lengths take two and three varint bytes.
    [
      "large items",
      {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "8" },
        items: [configMap("c", 200), configMap("d", 20_000), configMap("e", 70_000)],
      },
    ],
    [
      "many items",
      {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "9" },
        items: Array.from({ length: 300 }, (_, i) => configMap(`m-${i}`, 100)),
      },
    ],
    [
      "continue and remainingItemCount",
      {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "10", continue: "tok", remainingItemCount: 5 },
        items: [configMap("f", 3)],
      },
    ],
    [
      "secrets",
      {
        apiVersion: "v1",
        kind: "SecretList",
        metadata: { resourceVersion: "11" },
        items: [{ metadata: { name: "s", namespace: "ns" }, type: "Opaque", data: { k: Buffer.from("v").toString("base64") } }],
      },
    ],
    [
      "leases",
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "LeaseList",
        metadata: { resourceVersion: "12" },
        items: [{ metadata: { name: "l" }, spec: { holderIdentity: "h", leaseDurationSeconds: 15 } }],
      },
    ],
  ];
  it.each(lists)("assembles %s byte for byte like encodeProtobuf of the whole list", (_name, list) => {
    expect(Buffer.from(assembled(list)).equals(Buffer.from(encodeProtobuf(list as unknown as KubeObject)))).toBe(true);
  });

  it("has no parts for kinds without a protobuf form", () => {
    expect(protobufListParts({ apiVersion: "example.com/v1", kind: "WidgetList", metadata: {} })).toBeUndefined();
    expect(protobufListParts({ apiVersion: "v1", kind: "ConfigMap", metadata: {} })).toBeUndefined();
  });
});

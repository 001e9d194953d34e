import { afterEach, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane } from "../control-plane.js";
import { PROTOBUF_CONTENT_TYPE, decodeProtobuf, encodeProtobuf } from "../protobuf/codec.js";
import { ProtobufScheme, type ProtobufKinds } from "../protobuf/message-types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

const gadgets: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Cluster",
  schema: {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: { type: "object", properties: { replicas: { type: "integer" }, color: { type: "string" } } },
    },
  },
  printerColumns: [],
};

/** The same kind as two servers' owners describe it: the second message knows one more field. */
function gadgetKinds(pkg: string, extraField = ""): ProtobufKinds {
  return {
    sources: [
      `
syntax = "proto2";
package ${pkg};

message GadgetSpec {
  optional int32 replicas = 1;
  ${extraField}
}

message Gadget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional GadgetSpec spec = 2;
}
`,
    ],
    kinds: { "example.com/v1/Gadget": `${pkg}.Gadget` },
  };
}

const planes: ControlPlane[] = [];
afterEach(async () => {
  for (const plane of planes.splice(0)) await plane.close();
});

async function startPlane(): Promise<ControlPlane> {
  const plane = await createControlPlane({ resources: [gadgets], processMetrics: false, enablePriorityAndFairness: false });
  planes.push(plane);
  return plane;
}

function post(plane: ControlPlane, body: Uint8Array, accept = "application/json"): Promise<Response> {
  return fetch(`${plane.url}/apis/example.com/v1/gadgets`, {
    method: "POST",
    headers: { "Content-Type": PROTOBUF_CONTENT_TYPE, Accept: accept },
    body,
  });
}

describe("protobuf kinds registered with a server", () => {
  it("stay with that server: another plane in the process neither reads them nor is refused its own message for the kind", async () => {
    const [first, second] = [await startPlane(), await startPlane()];
    first.server.registerProtobufKinds(gadgetKinds("example.first.v1"));

    const firstScheme = new ProtobufScheme();
    firstScheme.register(gadgetKinds("example.first.v1"));
    const gadget = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec: { replicas: 2 } };
    const body = encodeProtobuf(gadget, firstScheme);

    const created = await post(first, body, PROTOBUF_CONTENT_TYPE);
    expect(created.status).toBe(201);
    expect(decodeProtobuf(new Uint8Array(await created.arrayBuffer()), firstScheme)).toMatchObject(gadget);
    const refused = await post(second, body);
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as { message: string }).message).toContain("example.com/v1, Kind=Gadget");

    // The second plane's owner describes the kind with another message; the first plane keeps its own.
    expect(() => second.server.registerProtobufKinds(gadgetKinds("example.second.v1", "optional string color = 2;"))).not.toThrow();
    const secondScheme = new ProtobufScheme();
    secondScheme.register(gadgetKinds("example.second.v1", "optional string color = 2;"));
    const colored = encodeProtobuf({ ...gadget, metadata: { name: "c" }, spec: { replicas: 1, color: "red" } }, secondScheme);
    expect((await post(second, colored)).status).toBe(201);
    // The first plane's message does not declare `color`: the body is refused, not stored without it.
    expect((await post(first, colored)).status).toBe(415);
  }, 30_000);
});

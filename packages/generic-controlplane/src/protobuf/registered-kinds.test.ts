import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { PROTOBUF_MAGIC, decodeProtobuf, encodeProtobuf, supportsProtobuf } from "./codec.js";
import { BUILTIN_PROTOBUF, ProtobufScheme, UNKNOWN_TYPE } from "./message-types.js";

const GADGET_PROTO = `
syntax = "proto2";
package example.gadgets.v1;

message QuantityEntry {
  optional string key = 1;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity value = 2;
}

message GadgetSpec {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
  repeated QuantityEntry limits = 2;
  optional int32 replicas = 3;
}

message Gadget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional GadgetSpec spec = 2;
}
`;

/** The same kind as a newer client knows it: one more spec field. */
const NEWER_GADGET_PROTO = `
syntax = "proto2";
package example.newer.v1;

message GadgetSpec {
  optional int32 replicas = 3;
  optional string color = 9;
}

message Gadget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional GadgetSpec spec = 2;
}
`;

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = BUILTIN_PROTOBUF.lookupType(UNKNOWN_TYPE);
  const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" })).finish();
  return new Uint8Array([...PROTOBUF_MAGIC, ...body]);
}

describe("ProtobufScheme.register", () => {
  const scheme = new ProtobufScheme();
  scheme.register({
    sources: [GADGET_PROTO],
    kinds: { "gadgets.example.com/v1/Gadget": "example.gadgets.v1.Gadget" },
    keepZeroFields: ["example.gadgets.v1.GadgetSpec.replicas"],
  });

  it("decodes a registered kind, with quantities and int-or-strings in their JSON forms", () => {
    expect(supportsProtobuf("gadgets.example.com/v1", "Gadget", scheme)).toBe(true);
    expect(supportsProtobuf("gadgets.example.com/v1", "Gadget")).toBe(false);
    const gadget = {
      apiVersion: "gadgets.example.com/v1",
      kind: "Gadget",
      metadata: { name: "g" },
      spec: { port: "http", limits: { cpu: "500m", memory: "1Gi" }, replicas: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(gadget, scheme), scheme)).toEqual(gadget);
    const numeric = { ...gadget, spec: { port: 8080, limits: {}, replicas: 2 } };
    expect(decodeProtobuf(encodeProtobuf(numeric, scheme), scheme)).toEqual({ ...gadget, spec: { port: 8080, replicas: 2 } });
  });

  it("registering the same messages again changes nothing; another message for the kind is refused", () => {
    expect(() =>
      scheme.register({ sources: [GADGET_PROTO], kinds: { "gadgets.example.com/v1/Gadget": "example.gadgets.v1.Gadget" } }),
    ).not.toThrow();
    expect(() => scheme.register({ sources: [], kinds: { "v1/ConfigMap": "example.gadgets.v1.Gadget" } })).toThrow(
      "protobuf for v1/ConfigMap is already",
    );
  });

  it("refuses a body with a field the registered message does not declare, instead of dropping it", () => {
    const newer = new protobuf.Root();
    protobuf.parse(NEWER_GADGET_PROTO.replace(".k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "bytes"), newer, { keepCase: true });
    const type = newer.lookupType("example.newer.v1.Gadget");
    const raw = type.encode(type.fromObject({ spec: { replicas: 1, color: "red" } })).finish();
    let refused: unknown;
    try {
      decodeProtobuf(envelope("gadgets.example.com/v1", "Gadget", raw), scheme);
    } catch (error) {
      refused = error;
    }
    expect(isControlPlaneError(refused) && refused.code).toBe("UnsupportedMediaType");
    expect((refused as Error).message).toBe(
      "the body of the request was in an unknown format: protobuf field example.gadgets.v1.GadgetSpec.9 is not supported for gadgets.example.com/v1, Kind=Gadget - accepted media types include: application/json, application/yaml",
    );
  });

  it('reads and writes a Go inline struct field (`json:",inline"`) as its fields on the parent, as an Ingress rule\'s http', () => {
    scheme.register({
      sources: [
        `
syntax = "proto2";
package example.routes.v1;

message Paths {
  repeated string paths = 1;
}

message RuleValue {
  optional Paths http = 1;
}

message Rule {
  optional string host = 1;
  optional RuleValue ruleValue = 2;
}

message Route {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Rule rules = 2;
}
`,
      ],
      kinds: { "routes.example.com/v1/Route": "example.routes.v1.Route" },
      inlineFields: ["example.routes.v1.Rule.ruleValue"],
    });
    const route = {
      apiVersion: "routes.example.com/v1",
      kind: "Route",
      metadata: { name: "r" },
      rules: [{ host: "foo.com", http: { paths: ["/bar"] } }, { host: "bar.com" }],
    };
    const encoded = encodeProtobuf(route, scheme);
    expect(decodeProtobuf(encoded, scheme)).toEqual(route);
    // On the wire the rule's field 2 holds the inline struct, whose field 1 is `http`.
    const raw = scheme.lookupType(UNKNOWN_TYPE).decode(encoded.subarray(PROTOBUF_MAGIC.length)) as unknown as { raw: Uint8Array };
    const wire = scheme.lookupType("example.routes.v1.Route").decode(raw.raw) as unknown as {
      rules: Array<{ ruleValue?: { http?: { paths: string[] } } }>;
    };
    expect(wire.rules[0]?.ruleValue?.http?.paths).toEqual(["/bar"]);
  });

  it("reads and writes an embedded object (RawExtension) as its JSON, and an unset int without omitempty as 0", () => {
    scheme.register({
      sources: [
        `
syntax = "proto2";
package example.snapshots.v1;

message Snapshot {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional .k8s.io.apimachinery.pkg.runtime.RawExtension data = 2;
  optional int64 revision = 3;
}
`,
      ],
      kinds: { "snapshots.example.com/v1/Snapshot": "example.snapshots.v1.Snapshot" },
      alwaysPresentFields: ["example.snapshots.v1.Snapshot.revision"],
    });
    const snapshot = {
      apiVersion: "snapshots.example.com/v1",
      kind: "Snapshot",
      metadata: { name: "s" },
      data: { spec: { template: { metadata: { labels: { a: "b" } } } } },
      revision: 3,
    };
    const encoded = encodeProtobuf(snapshot, scheme);
    expect(decodeProtobuf(encoded, scheme)).toEqual(snapshot);
    // On the wire the data is the object's JSON bytes, as Go's RawExtension holds them.
    const raw = scheme.lookupType(UNKNOWN_TYPE).decode(encoded.subarray(PROTOBUF_MAGIC.length)) as unknown as { raw: Uint8Array };
    const wire = scheme.lookupType("example.snapshots.v1.Snapshot").decode(raw.raw) as unknown as { data: { raw: Uint8Array } };
    expect(JSON.parse(Buffer.from(wire.data.raw).toString("utf8"))).toEqual(snapshot.data);
    const type = scheme.lookupType("example.snapshots.v1.Snapshot");
    const bare = type.encode(type.fromObject({ metadata: { name: "s" } })).finish();
    expect(decodeProtobuf(envelope("snapshots.example.com/v1", "Snapshot", bare), scheme)).toEqual({
      apiVersion: "snapshots.example.com/v1",
      kind: "Snapshot",
      metadata: { name: "s" },
      revision: 0,
    });
  });
});

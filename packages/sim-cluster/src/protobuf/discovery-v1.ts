import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.discovery.v1";

/** discovery.k8s.io/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.discovery.v1;

message Endpoint {
  repeated string addresses = 1;
  optional EndpointConditions conditions = 2;
  optional string hostname = 3;
  optional .k8s.io.api.core.v1.ObjectReference targetRef = 4;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry deprecatedTopology = 5;
  optional string nodeName = 6;
  optional string zone = 7;
  optional EndpointHints hints = 8;
}

message EndpointConditions {
  optional bool ready = 1;
  optional bool serving = 2;
  optional bool terminating = 3;
}

message EndpointHints {
  repeated ForZone forZones = 1;
}

message EndpointPort {
  optional string name = 1;
  optional string protocol = 2;
  optional int32 port = 3;
  optional string appProtocol = 4;
}

message EndpointSlice {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional string addressType = 4;
  repeated Endpoint endpoints = 2;
  repeated EndpointPort ports = 3;
}

message ForZone {
  optional string name = 1;
}
`;

export const DISCOVERY_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "discovery.k8s.io/v1/EndpointSlice": "k8s.io.api.discovery.v1.EndpointSlice",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    Endpoint: ["hostname", "targetRef", "nodeName", "zone", "hints"],
    EndpointConditions: ["ready", "serving", "terminating"],
    EndpointPort: ["name", "protocol", "port", "appProtocol"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    EndpointSlice: ["addressType"],
    ForZone: ["name"],
  }),
};

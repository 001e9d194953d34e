import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.node.v1";

/** node.k8s.io/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.node.v1;

message Overhead {
  repeated .k8s.io.api.core.v1.QuantityEntry podFixed = 1;
}

message RuntimeClass {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional string handler = 2;
  optional Overhead overhead = 3;
  optional Scheduling scheduling = 4;
}

message Scheduling {
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry nodeSelector = 1;
  repeated .k8s.io.api.core.v1.Toleration tolerations = 2;
}
`;

export const NODE_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "node.k8s.io/v1/RuntimeClass": "k8s.io.api.node.v1.RuntimeClass",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    RuntimeClass: ["overhead", "scheduling"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    RuntimeClass: ["handler"],
  }),
};

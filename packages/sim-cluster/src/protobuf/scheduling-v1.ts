import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.scheduling.v1";

/** scheduling.k8s.io/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.scheduling.v1;

message PriorityClass {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional int32 value = 2;
  optional bool globalDefault = 3;
  optional string description = 4;
  optional string preemptionPolicy = 5;
}
`;

export const SCHEDULING_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "scheduling.k8s.io/v1/PriorityClass": "k8s.io.api.scheduling.v1.PriorityClass",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    PriorityClass: ["preemptionPolicy"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    PriorityClass: ["value"],
  }),
};

import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.apimachinery.pkg.apis.meta.v1";

/** meta/v1's `Condition` (a Service's status conditions), which the control plane's own messages do not need. */
const SOURCE = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

message Condition {
  optional string type = 1;
  optional string status = 2;
  optional int64 observedGeneration = 3;
  optional Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}
`;

export const META_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {},
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, { Condition: ["type", "status", "reason", "message"] }),
};

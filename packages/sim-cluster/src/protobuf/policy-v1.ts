import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.policy.v1";

/** policy/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.policy.v1;

message PodDisruptionBudget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodDisruptionBudgetSpec spec = 2;
  optional PodDisruptionBudgetStatus status = 3;
}

message PodDisruptionBudgetSpec {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString minAvailable = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 3;
  optional string unhealthyPodEvictionPolicy = 4;
}

message PodDisruptionBudgetStatus {
  optional int64 observedGeneration = 1;
  repeated TimeEntry disruptedPods = 2;
  optional int32 disruptionsAllowed = 3;
  optional int32 currentHealthy = 4;
  optional int32 desiredHealthy = 5;
  optional int32 expectedPods = 6;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 7;
}

message TimeEntry {
  optional string key = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time value = 2;
}
`;

export const POLICY_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "policy/v1/PodDisruptionBudget": "k8s.io.api.policy.v1.PodDisruptionBudget",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    PodDisruptionBudgetSpec: ["minAvailable", "selector", "maxUnavailable", "unhealthyPodEvictionPolicy"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    PodDisruptionBudgetStatus: ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"],
  }),
};

import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.autoscaling.v1";

/** autoscaling/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;

message CrossVersionObjectReference {
  optional string kind = 1;
  optional string name = 2;
  optional string apiVersion = 3;
}

message HorizontalPodAutoscaler {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional HorizontalPodAutoscalerSpec spec = 2;
  optional HorizontalPodAutoscalerStatus status = 3;
}

message HorizontalPodAutoscalerSpec {
  optional CrossVersionObjectReference scaleTargetRef = 1;
  optional int32 minReplicas = 2;
  optional int32 maxReplicas = 3;
  optional int32 targetCPUUtilizationPercentage = 4;
}

message HorizontalPodAutoscalerStatus {
  optional int64 observedGeneration = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastScaleTime = 2;
  optional int32 currentReplicas = 3;
  optional int32 desiredReplicas = 4;
  optional int32 currentCPUUtilizationPercentage = 5;
}
`;

export const AUTOSCALING_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "autoscaling/v1/HorizontalPodAutoscaler": "k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    HorizontalPodAutoscalerSpec: ["minReplicas", "targetCPUUtilizationPercentage"],
    HorizontalPodAutoscalerStatus: ["observedGeneration", "lastScaleTime", "currentCPUUtilizationPercentage"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    CrossVersionObjectReference: ["kind", "name"],
    HorizontalPodAutoscalerSpec: ["maxReplicas"],
    HorizontalPodAutoscalerStatus: ["currentReplicas", "desiredReplicas"],
  }),
};

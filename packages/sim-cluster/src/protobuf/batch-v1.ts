import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.batch.v1";

/** batch/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.batch.v1;

message CronJob {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CronJobSpec spec = 2;
  optional CronJobStatus status = 3;
}

message CronJobSpec {
  optional string schedule = 1;
  optional string timeZone = 8;
  optional int64 startingDeadlineSeconds = 2;
  optional string concurrencyPolicy = 3;
  optional bool suspend = 4;
  optional JobTemplateSpec jobTemplate = 5;
  optional int32 successfulJobsHistoryLimit = 6;
  optional int32 failedJobsHistoryLimit = 7;
}

message CronJobStatus {
  repeated .k8s.io.api.core.v1.ObjectReference active = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastScheduleTime = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastSuccessfulTime = 5;
}

message Job {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
  optional JobStatus status = 3;
}

message JobCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message JobSpec {
  optional int32 parallelism = 1;
  optional int32 completions = 2;
  optional int64 activeDeadlineSeconds = 3;
  optional PodFailurePolicy podFailurePolicy = 11;
  optional SuccessPolicy successPolicy = 16;
  optional int32 backoffLimit = 7;
  optional int32 backoffLimitPerIndex = 12;
  optional int32 maxFailedIndexes = 13;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 4;
  optional bool manualSelector = 5;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 6;
  optional int32 ttlSecondsAfterFinished = 8;
  optional string completionMode = 9;
  optional bool suspend = 10;
  optional string podReplacementPolicy = 14;
  optional string managedBy = 15;
}

message JobStatus {
  repeated JobCondition conditions = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time completionTime = 3;
  optional int32 active = 4;
  optional int32 succeeded = 5;
  optional int32 failed = 6;
  optional int32 terminating = 11;
  optional string completedIndexes = 7;
  optional string failedIndexes = 10;
  optional UncountedTerminatedPods uncountedTerminatedPods = 8;
  optional int32 ready = 9;
}

message JobTemplateSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional JobSpec spec = 2;
}

message PodFailurePolicy {
  repeated PodFailurePolicyRule rules = 1;
}

message PodFailurePolicyOnExitCodesRequirement {
  optional string containerName = 1;
  optional string operator = 2;
  repeated int32 values = 3;
}

message PodFailurePolicyOnPodConditionsPattern {
  optional string type = 1;
  optional string status = 2;
}

message PodFailurePolicyRule {
  optional string action = 1;
  optional PodFailurePolicyOnExitCodesRequirement onExitCodes = 2;
  repeated PodFailurePolicyOnPodConditionsPattern onPodConditions = 3;
}

message SuccessPolicy {
  repeated SuccessPolicyRule rules = 1;
}

message SuccessPolicyRule {
  optional string succeededIndexes = 1;
  optional int32 succeededCount = 2;
}

message UncountedTerminatedPods {
  repeated string succeeded = 1;
  repeated string failed = 2;
}
`;

export const BATCH_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "batch/v1/Job": "k8s.io.api.batch.v1.Job",
    "batch/v1/CronJob": "k8s.io.api.batch.v1.CronJob",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    CronJobSpec: ["timeZone", "startingDeadlineSeconds", "suspend", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"],
    CronJobStatus: ["lastScheduleTime", "lastSuccessfulTime"],
    JobSpec: [
      "parallelism",
      "completions",
      "activeDeadlineSeconds",
      "podFailurePolicy",
      "successPolicy",
      "backoffLimit",
      "backoffLimitPerIndex",
      "maxFailedIndexes",
      "selector",
      "manualSelector",
      "ttlSecondsAfterFinished",
      "completionMode",
      "suspend",
      "podReplacementPolicy",
      "managedBy",
    ],
    JobStatus: ["startTime", "completionTime", "terminating", "failedIndexes", "uncountedTerminatedPods", "ready"],
    PodFailurePolicyOnExitCodesRequirement: ["containerName"],
    PodFailurePolicyRule: ["onExitCodes"],
    SuccessPolicyRule: ["succeededIndexes", "succeededCount"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    CronJobSpec: ["schedule"],
    JobCondition: ["type", "status"],
    PodFailurePolicyOnExitCodesRequirement: ["operator"],
    PodFailurePolicyOnPodConditionsPattern: ["type", "status"],
    PodFailurePolicyRule: ["action"],
  }),
};

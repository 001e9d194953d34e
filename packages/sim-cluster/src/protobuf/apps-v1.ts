import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.apps.v1";

/** apps/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.apps.v1;

message ControllerRevision {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional .k8s.io.apimachinery.pkg.runtime.RawExtension data = 2;
  optional int64 revision = 3;
}

message DaemonSet {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional DaemonSetSpec spec = 2;
  optional DaemonSetStatus status = 3;
}

message DaemonSetCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message DaemonSetSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 1;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 2;
  optional DaemonSetUpdateStrategy updateStrategy = 3;
  optional int32 minReadySeconds = 4;
  optional int32 revisionHistoryLimit = 6;
}

message DaemonSetStatus {
  optional int32 currentNumberScheduled = 1;
  optional int32 numberMisscheduled = 2;
  optional int32 desiredNumberScheduled = 3;
  optional int32 numberReady = 4;
  optional int64 observedGeneration = 5;
  optional int32 updatedNumberScheduled = 6;
  optional int32 numberAvailable = 7;
  optional int32 numberUnavailable = 8;
  optional int32 collisionCount = 9;
  repeated DaemonSetCondition conditions = 10;
}

message DaemonSetUpdateStrategy {
  optional string type = 1;
  optional RollingUpdateDaemonSet rollingUpdate = 2;
}

message Deployment {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
  optional DeploymentStatus status = 3;
}

message DeploymentCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastUpdateTime = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 7;
  optional string reason = 4;
  optional string message = 5;
}

message DeploymentSpec {
  optional int32 replicas = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6;
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9;
}

message DeploymentStatus {
  optional int64 observedGeneration = 1;
  optional int32 replicas = 2;
  optional int32 updatedReplicas = 3;
  optional int32 readyReplicas = 7;
  optional int32 availableReplicas = 4;
  optional int32 unavailableReplicas = 5;
  repeated DeploymentCondition conditions = 6;
  optional int32 collisionCount = 8;
}

message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2;
}

message ReplicaSet {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
  optional ReplicaSetStatus status = 3;
}

message ReplicaSetCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message ReplicaSetSpec {
  optional int32 replicas = 1;
  optional int32 minReadySeconds = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
}

message ReplicaSetStatus {
  optional int32 replicas = 1;
  optional int32 fullyLabeledReplicas = 2;
  optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5;
  optional int64 observedGeneration = 3;
  repeated ReplicaSetCondition conditions = 6;
}

message RollingUpdateDaemonSet {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
}

message RollingUpdateDeployment {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
}

message RollingUpdateStatefulSetStrategy {
  optional int32 partition = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 2;
}

message StatefulSet {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional StatefulSetSpec spec = 2;
  optional StatefulSetStatus status = 3;
}

message StatefulSetCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message StatefulSetOrdinals {
  optional int32 start = 1;
}

message StatefulSetPersistentVolumeClaimRetentionPolicy {
  optional string whenDeleted = 1;
  optional string whenScaled = 2;
}

message StatefulSetSpec {
  optional int32 replicas = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
  repeated .k8s.io.api.core.v1.PersistentVolumeClaim volumeClaimTemplates = 4;
  optional string serviceName = 5;
  optional string podManagementPolicy = 6;
  optional StatefulSetUpdateStrategy updateStrategy = 7;
  optional int32 revisionHistoryLimit = 8;
  optional int32 minReadySeconds = 9;
  optional StatefulSetPersistentVolumeClaimRetentionPolicy persistentVolumeClaimRetentionPolicy = 10;
  optional StatefulSetOrdinals ordinals = 11;
}

message StatefulSetStatus {
  optional int64 observedGeneration = 1;
  optional int32 replicas = 2;
  optional int32 readyReplicas = 3;
  optional int32 currentReplicas = 4;
  optional int32 updatedReplicas = 5;
  optional string currentRevision = 6;
  optional string updateRevision = 7;
  optional int32 collisionCount = 9;
  repeated StatefulSetCondition conditions = 10;
  optional int32 availableReplicas = 11;
}

message StatefulSetUpdateStrategy {
  optional string type = 1;
  optional RollingUpdateStatefulSetStrategy rollingUpdate = 2;
}
`;

export const APPS_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "apps/v1/Deployment": "k8s.io.api.apps.v1.Deployment",
    "apps/v1/StatefulSet": "k8s.io.api.apps.v1.StatefulSet",
    "apps/v1/DaemonSet": "k8s.io.api.apps.v1.DaemonSet",
    "apps/v1/ReplicaSet": "k8s.io.api.apps.v1.ReplicaSet",
    "apps/v1/ControllerRevision": "k8s.io.api.apps.v1.ControllerRevision",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    DaemonSetSpec: ["selector", "revisionHistoryLimit"],
    DaemonSetStatus: ["collisionCount"],
    DaemonSetUpdateStrategy: ["rollingUpdate"],
    DeploymentSpec: ["replicas", "selector", "revisionHistoryLimit", "progressDeadlineSeconds"],
    DeploymentStatus: ["collisionCount"],
    DeploymentStrategy: ["rollingUpdate"],
    ReplicaSetSpec: ["replicas", "selector"],
    RollingUpdateDaemonSet: ["maxUnavailable", "maxSurge"],
    RollingUpdateDeployment: ["maxUnavailable", "maxSurge"],
    RollingUpdateStatefulSetStrategy: ["partition", "maxUnavailable"],
    StatefulSetSpec: ["replicas", "selector", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "ordinals"],
    StatefulSetStatus: ["collisionCount"],
    StatefulSetUpdateStrategy: ["rollingUpdate"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    ControllerRevision: ["revision"],
    DaemonSetCondition: ["type", "status"],
    DaemonSetStatus: ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
    DeploymentCondition: ["type", "status"],
    ReplicaSetCondition: ["type", "status"],
    ReplicaSetStatus: ["replicas"],
    StatefulSetCondition: ["type", "status"],
    StatefulSetOrdinals: ["start"],
    StatefulSetSpec: ["serviceName"],
    StatefulSetStatus: ["replicas", "availableReplicas"],
  }),
};

import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.storage.v1";

/** storage.k8s.io/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated key/value entries. */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.storage.v1;

message CSIDriver {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CSIDriverSpec spec = 2;
}

message CSIDriverSpec {
  optional bool attachRequired = 1;
  optional bool podInfoOnMount = 2;
  repeated string volumeLifecycleModes = 3;
  optional bool storageCapacity = 4;
  optional string fsGroupPolicy = 5;
  repeated TokenRequest tokenRequests = 6;
  optional bool requiresRepublish = 7;
  optional bool seLinuxMount = 8;
}

message CSINode {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CSINodeSpec spec = 2;
}

message CSINodeDriver {
  optional string name = 1;
  optional string nodeID = 2;
  repeated string topologyKeys = 3;
  optional VolumeNodeResources allocatable = 4;
}

message CSINodeSpec {
  repeated CSINodeDriver drivers = 1;
}

message StorageClass {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional string provisioner = 2;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry parameters = 3;
  optional string reclaimPolicy = 4;
  repeated string mountOptions = 5;
  optional bool allowVolumeExpansion = 6;
  optional string volumeBindingMode = 7;
  repeated .k8s.io.api.core.v1.TopologySelectorTerm allowedTopologies = 8;
}

message TokenRequest {
  optional string audience = 1;
  optional int64 expirationSeconds = 2;
}

message VolumeAttachment {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional VolumeAttachmentSpec spec = 2;
  optional VolumeAttachmentStatus status = 3;
}

message VolumeAttachmentSource {
  optional string persistentVolumeName = 1;
  optional .k8s.io.api.core.v1.PersistentVolumeSpec inlineVolumeSpec = 2;
}

message VolumeAttachmentSpec {
  optional string attacher = 1;
  optional VolumeAttachmentSource source = 2;
  optional string nodeName = 3;
}

message VolumeAttachmentStatus {
  optional bool attached = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry attachmentMetadata = 2;
  optional VolumeError attachError = 3;
  optional VolumeError detachError = 4;
}

message VolumeError {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time time = 1;
  optional string message = 2;
}

message VolumeNodeResources {
  optional int32 count = 1;
}
`;

export const STORAGE_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "storage.k8s.io/v1/StorageClass": "k8s.io.api.storage.v1.StorageClass",
    "storage.k8s.io/v1/CSIDriver": "k8s.io.api.storage.v1.CSIDriver",
    "storage.k8s.io/v1/CSINode": "k8s.io.api.storage.v1.CSINode",
    "storage.k8s.io/v1/VolumeAttachment": "k8s.io.api.storage.v1.VolumeAttachment",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    CSIDriverSpec: ["attachRequired", "podInfoOnMount", "storageCapacity", "fsGroupPolicy", "requiresRepublish", "seLinuxMount"],
    CSINodeDriver: ["allocatable"],
    StorageClass: ["reclaimPolicy", "allowVolumeExpansion", "volumeBindingMode"],
    TokenRequest: ["expirationSeconds"],
    VolumeAttachmentSource: ["persistentVolumeName", "inlineVolumeSpec"],
    VolumeAttachmentStatus: ["attachError", "detachError"],
    VolumeNodeResources: ["count"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    CSINodeDriver: ["name", "nodeID"],
    StorageClass: ["provisioner"],
    TokenRequest: ["audience"],
    VolumeAttachmentSpec: ["attacher", "nodeName"],
    VolumeAttachmentStatus: ["attached"],
  }),
};

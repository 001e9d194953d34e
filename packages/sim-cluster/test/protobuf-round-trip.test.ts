/**
 * Each kind the cluster serves beyond the control plane's own, created as client-go's typed clients
 * send it (application/vnd.kubernetes.protobuf, bodies encoded here with upstream's field numbers),
 * then read back in JSON and in protobuf. The bodies carry the fields whose wire form differs from
 * their JSON: maps as key/value entries, quantities, int-or-strings, Go inline structs (a volume's
 * source, a probe's handler, a PV's source), a ControllerRevision's embedded object.
 */
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { APPS_V1 } from "../src/protobuf/apps-v1.js";
import { AUTOSCALING_V2 } from "../src/protobuf/autoscaling-v2.js";
import { CORE_V1 } from "../src/protobuf/core-v1.js";
import { DISCOVERY_V1 } from "../src/protobuf/discovery-v1.js";
import { META_V1 } from "../src/protobuf/meta-v1.js";
import { NETWORKING_V1 } from "../src/protobuf/networking-v1.js";
import { NODE_V1 } from "../src/protobuf/node-v1.js";
import { SCHEDULING_V1 } from "../src/protobuf/scheduling-v1.js";
import { STORAGE_V1 } from "../src/protobuf/storage-v1.js";
import { AUTOSCALING_V1 } from "../src/protobuf/autoscaling-v1.js";
import { BATCH_V1 } from "../src/protobuf/batch-v1.js";
import { POLICY_V1 } from "../src/protobuf/policy-v1.js";

/** The apimachinery messages the group messages refer to, as k8s.io/apimachinery's generated.proto numbers them. */
const APIMACHINERY = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message StringEntry { optional string key = 1; optional string value = 2; }
message BytesEntry { optional string key = 1; optional bytes value = 2; }
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message ObjectMeta {
  optional string name = 1;
  optional string namespace = 3;
  optional string uid = 5;
  optional string resourceVersion = 6;
  repeated StringEntry labels = 11;
  repeated StringEntry annotations = 12;
  repeated string finalizers = 14;
}
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelector { repeated StringEntry matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }
`;
const RUNTIME = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message RawExtension { optional bytes raw = 1; }
`;
const SCALARS = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.api.resource;
message Quantity { optional string string = 1; }
`;
const INT_OR_STRING = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;
message IntOrString { optional int64 type = 1; optional int32 intVal = 2; optional string strVal = 3; }
`;
const CORE_REFERENCES = `
syntax = "proto2";
package k8s.io.api.core.v1;
message ObjectReference { optional string kind = 1; optional string namespace = 2; optional string name = 3; optional string uid = 4; optional string apiVersion = 5; optional string resourceVersion = 6; optional string fieldPath = 7; }
message LocalObjectReference { optional string name = 1; }
message QuantityEntry { optional string key = 1; optional .k8s.io.apimachinery.pkg.api.resource.Quantity value = 2; }
`;

const GROUPS = [
  META_V1,
  CORE_V1,
  APPS_V1,
  BATCH_V1,
  POLICY_V1,
  NETWORKING_V1,
  NODE_V1,
  STORAGE_V1,
  AUTOSCALING_V1,
  AUTOSCALING_V2,
  DISCOVERY_V1,
  SCHEDULING_V1,
];
const root = new protobuf.Root();
for (const source of [APIMACHINERY, RUNTIME, SCALARS, INT_OR_STRING, CORE_REFERENCES, ...GROUPS.flatMap((group) => group.sources)])
  protobuf.parse(source, root, { keepCase: true });
root.resolveAll();
const unknownType = root.lookupType("k8s.io.apimachinery.pkg.runtime.Unknown");
const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
const PROTOBUF = "application/vnd.kubernetes.protobuf";

const quantity = (value: string) => ({ string: value });
const entries = (map: Record<string, unknown>) => Object.entries(map).map(([key, value]) => ({ key, value }));
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace === undefined ? {} : { namespace }),
  labels: entries({ app: "rt" }),
});

const podTemplateWire = {
  metadata: { labels: entries({ app: "rt" }) },
  spec: {
    containers: [
      {
        name: "c",
        image: "nginx",
        env: [
          { name: "MODE", valueFrom: { configMapKeyRef: { localObjectReference: { name: "settings" }, key: "mode", optional: false } } },
        ],
        resources: { limits: entries({ cpu: quantity("1") }), requests: entries({ cpu: quantity("500m"), memory: quantity("64Mi") }) },
        volumeMounts: [{ name: "data", mountPath: "/data" }],
        readinessProbe: { handler: { httpGet: { path: "/healthz", port: { type: 1, strVal: "http" } } }, periodSeconds: 5 },
        ports: [{ name: "http", containerPort: 80 }],
      },
    ],
    volumes: [{ name: "data", volumeSource: { emptyDir: { sizeLimit: quantity("1Gi") } } }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/os", operator: "In", values: ["linux"] }] }],
        },
      },
    },
    nodeSelector: entries({ "kubernetes.io/os": "linux" }),
    securityContext: { runAsNonRoot: true, runAsUser: 1000 },
  },
};
const podTemplateJson = {
  metadata: { labels: { app: "rt" } },
  spec: {
    containers: [
      {
        name: "c",
        image: "nginx",
        env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "settings", key: "mode", optional: false } } }],
        resources: { limits: { cpu: "1" }, requests: { cpu: "500m", memory: "64Mi" } },
        volumeMounts: [{ name: "data", mountPath: "/data" }],
        readinessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 5 },
        ports: [{ name: "http", containerPort: 80 }],
      },
    ],
    volumes: [{ name: "data", emptyDir: { sizeLimit: "1Gi" } }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/os", operator: "In", values: ["linux"] }] }],
        },
      },
    },
    nodeSelector: { "kubernetes.io/os": "linux" },
    securityContext: { runAsNonRoot: true, runAsUser: 1000 },
  },
};
const selectorWire = { matchLabels: entries({ app: "rt" }) };
const selectorJson = { matchLabels: { app: "rt" } };

interface Case {
  kind: string;
  apiVersion: string;
  path: string;
  message: string;
  wire: Record<string, unknown>;
  json: Record<string, unknown>;
}

const NS = "default";
const CASES: Case[] = [
  {
    kind: "StatefulSet",
    apiVersion: "apps/v1",
    path: `/apis/apps/v1/namespaces/${NS}/statefulsets`,
    message: "k8s.io.api.apps.v1.StatefulSet",
    wire: {
      metadata: meta("pb-sts"),
      spec: {
        replicas: 0,
        selector: selectorWire,
        template: podTemplateWire,
        serviceName: "pb-sts",
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        volumeClaimTemplates: [
          {
            metadata: { name: "www" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: entries({ storage: quantity("1Gi") }) } },
          },
        ],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
        ordinals: { start: 3 },
      },
    },
    json: {
      spec: {
        replicas: 0,
        selector: selectorJson,
        template: podTemplateJson,
        serviceName: "pb-sts",
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        volumeClaimTemplates: [
          { metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
        ],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
        ordinals: { start: 3 },
      },
    },
  },
  {
    kind: "DaemonSet",
    apiVersion: "apps/v1",
    path: `/apis/apps/v1/namespaces/${NS}/daemonsets`,
    message: "k8s.io.api.apps.v1.DaemonSet",
    wire: {
      metadata: meta("pb-ds"),
      spec: {
        selector: selectorWire,
        template: podTemplateWire,
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: { type: 0, intVal: 2 }, maxSurge: { type: 0, intVal: 0 } },
        },
        minReadySeconds: 3,
      },
    },
    json: {
      spec: {
        selector: selectorJson,
        template: podTemplateJson,
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } },
        minReadySeconds: 3,
      },
    },
  },
  {
    kind: "ReplicaSet",
    apiVersion: "apps/v1",
    path: `/apis/apps/v1/namespaces/${NS}/replicasets`,
    message: "k8s.io.api.apps.v1.ReplicaSet",
    wire: { metadata: meta("pb-rs"), spec: { replicas: 0, selector: selectorWire, template: podTemplateWire, minReadySeconds: 2 } },
    json: { spec: { replicas: 0, selector: selectorJson, template: podTemplateJson, minReadySeconds: 2 } },
  },
  {
    kind: "ControllerRevision",
    apiVersion: "apps/v1",
    path: `/apis/apps/v1/namespaces/${NS}/controllerrevisions`,
    message: "k8s.io.api.apps.v1.ControllerRevision",
    wire: {
      metadata: meta("pb-rev"),
      data: { raw: Buffer.from(JSON.stringify({ spec: { template: { $patch: "replace", metadata: { labels: { app: "rt" } } } } })) },
      revision: 2,
    },
    json: { data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "rt" } } } } }, revision: 2 },
  },
  {
    kind: "ReplicationController",
    apiVersion: "v1",
    path: `/api/v1/namespaces/${NS}/replicationcontrollers`,
    message: "k8s.io.api.core.v1.ReplicationController",
    wire: { metadata: meta("pb-rc"), spec: { replicas: 0, selector: entries({ app: "rt" }), template: podTemplateWire } },
    json: { spec: { replicas: 0, selector: { app: "rt" }, template: podTemplateJson } },
  },
  {
    kind: "PodTemplate",
    apiVersion: "v1",
    path: `/api/v1/namespaces/${NS}/podtemplates`,
    message: "k8s.io.api.core.v1.PodTemplate",
    wire: { metadata: meta("pb-podtemplate"), template: podTemplateWire },
    json: { template: podTemplateJson },
  },
  {
    kind: "IngressClass",
    apiVersion: "networking.k8s.io/v1",
    path: "/apis/networking.k8s.io/v1/ingressclasses",
    message: "k8s.io.api.networking.v1.IngressClass",
    wire: {
      metadata: meta("pb-ingressclass"),
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external-lb", scope: "Cluster" },
      },
    },
    json: {
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external-lb", scope: "Cluster" },
      },
    },
  },
  {
    kind: "NetworkPolicy",
    apiVersion: "networking.k8s.io/v1",
    path: `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`,
    message: "k8s.io.api.networking.v1.NetworkPolicy",
    wire: {
      metadata: meta("pb-netpol"),
      spec: {
        podSelector: selectorWire,
        ingress: [
          {
            ports: [{ protocol: "TCP", port: { type: 0, intVal: 80 }, endPort: 90 }],
            from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }],
          },
        ],
        egress: [{ to: [{ namespaceSelector: selectorWire }] }],
        policyTypes: ["Ingress", "Egress"],
      },
    },
    json: {
      spec: {
        podSelector: selectorJson,
        ingress: [
          { ports: [{ protocol: "TCP", port: 80, endPort: 90 }], from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] },
        ],
        egress: [{ to: [{ namespaceSelector: selectorJson }] }],
        policyTypes: ["Ingress", "Egress"],
      },
    },
  },
  {
    kind: "RuntimeClass",
    apiVersion: "node.k8s.io/v1",
    path: "/apis/node.k8s.io/v1/runtimeclasses",
    message: "k8s.io.api.node.v1.RuntimeClass",
    wire: {
      metadata: meta("pb-runtimeclass"),
      handler: "runc",
      overhead: { podFixed: entries({ cpu: quantity("250m"), memory: quantity("120Mi") }) },
      scheduling: {
        nodeSelector: entries({ sandbox: "true" }),
        tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
      },
    },
    json: {
      handler: "runc",
      overhead: { podFixed: { cpu: "250m", memory: "120Mi" } },
      scheduling: { nodeSelector: { sandbox: "true" }, tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }] },
    },
  },
  {
    kind: "StorageClass",
    apiVersion: "storage.k8s.io/v1",
    path: "/apis/storage.k8s.io/v1/storageclasses",
    message: "k8s.io.api.storage.v1.StorageClass",
    wire: {
      metadata: meta("pb-storageclass"),
      provisioner: "example.com/disk",
      parameters: entries({ type: "ssd" }),
      reclaimPolicy: "Retain",
      mountOptions: ["ro"],
      allowVolumeExpansion: false,
      volumeBindingMode: "WaitForFirstConsumer",
      allowedTopologies: [{ matchLabelExpressions: [{ key: "zone", values: ["a"] }] }],
    },
    json: {
      provisioner: "example.com/disk",
      parameters: { type: "ssd" },
      reclaimPolicy: "Retain",
      mountOptions: ["ro"],
      allowVolumeExpansion: false,
      volumeBindingMode: "WaitForFirstConsumer",
      allowedTopologies: [{ matchLabelExpressions: [{ key: "zone", values: ["a"] }] }],
    },
  },
  {
    kind: "CSIDriver",
    apiVersion: "storage.k8s.io/v1",
    path: "/apis/storage.k8s.io/v1/csidrivers",
    message: "k8s.io.api.storage.v1.CSIDriver",
    wire: {
      metadata: meta("pb.csi.example.com"),
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        volumeLifecycleModes: ["Persistent"],
        fsGroupPolicy: "File",
        tokenRequests: [{ audience: "vault", expirationSeconds: 3600 }],
        requiresRepublish: false,
        seLinuxMount: false,
      },
    },
    json: {
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        volumeLifecycleModes: ["Persistent"],
        fsGroupPolicy: "File",
        tokenRequests: [{ audience: "vault", expirationSeconds: 3600 }],
        requiresRepublish: false,
        seLinuxMount: false,
      },
    },
  },
  {
    kind: "CSINode",
    apiVersion: "storage.k8s.io/v1",
    path: "/apis/storage.k8s.io/v1/csinodes",
    message: "k8s.io.api.storage.v1.CSINode",
    wire: {
      metadata: meta("pb-csinode"),
      spec: { drivers: [{ name: "pb.csi.example.com", nodeID: "node-1", topologyKeys: ["zone"], allocatable: { count: 0 } }] },
    },
    json: { spec: { drivers: [{ name: "pb.csi.example.com", nodeID: "node-1", topologyKeys: ["zone"], allocatable: { count: 0 } }] } },
  },
  {
    kind: "VolumeAttachment",
    apiVersion: "storage.k8s.io/v1",
    path: "/apis/storage.k8s.io/v1/volumeattachments",
    message: "k8s.io.api.storage.v1.VolumeAttachment",
    wire: {
      metadata: meta("pb-attachment"),
      spec: { attacher: "pb.csi.example.com", source: { persistentVolumeName: "pv-1" }, nodeName: "sim-node-1" },
    },
    json: { spec: { attacher: "pb.csi.example.com", source: { persistentVolumeName: "pv-1" }, nodeName: "sim-node-1" } },
  },
  {
    kind: "PersistentVolume",
    apiVersion: "v1",
    path: "/api/v1/persistentvolumes",
    message: "k8s.io.api.core.v1.PersistentVolume",
    wire: {
      metadata: meta("pb-pv"),
      spec: {
        capacity: entries({ storage: quantity("5Gi") }),
        persistentVolumeSource: {
          csi: { driver: "pb.csi.example.com", volumeHandle: "vol-1", volumeAttributes: entries({ tier: "gold" }) },
        },
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: "manual",
        volumeMode: "Filesystem",
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } },
      },
    },
    json: {
      spec: {
        capacity: { storage: "5Gi" },
        csi: { driver: "pb.csi.example.com", volumeHandle: "vol-1", volumeAttributes: { tier: "gold" } },
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: "manual",
        volumeMode: "Filesystem",
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } },
      },
    },
  },
  {
    kind: "PersistentVolumeClaim",
    apiVersion: "v1",
    path: `/api/v1/namespaces/${NS}/persistentvolumeclaims`,
    message: "k8s.io.api.core.v1.PersistentVolumeClaim",
    wire: {
      metadata: meta("pb-pvc"),
      spec: {
        accessModes: ["ReadWriteOnce"],
        selector: selectorWire,
        resources: { requests: entries({ storage: quantity("1Gi") }) },
        storageClassName: "manual",
        volumeMode: "Filesystem",
      },
    },
    json: {
      spec: {
        accessModes: ["ReadWriteOnce"],
        selector: selectorJson,
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "manual",
        volumeMode: "Filesystem",
      },
    },
  },
  {
    kind: "HorizontalPodAutoscaler",
    apiVersion: "autoscaling/v2",
    path: `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`,
    message: "k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler",
    wire: {
      metadata: meta("pb-hpa"),
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [{ type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: quantity("100Mi") } } }],
        behavior: {
          scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
        },
      },
    },
    json: {
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [{ type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } } }],
        behavior: {
          scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
        },
      },
    },
  },
  {
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
    path: `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
    message: "k8s.io.api.discovery.v1.EndpointSlice",
    wire: {
      metadata: meta("pb-slice"),
      addressType: "IPv4",
      endpoints: [
        {
          addresses: ["10.244.1.5"],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: "sim-node-1",
          zone: "a",
          hints: { forZones: [{ name: "a" }] },
          deprecatedTopology: entries({ "kubernetes.io/hostname": "sim-node-1" }),
        },
      ],
      ports: [{ name: "http", protocol: "TCP", port: 80, appProtocol: "http" }],
    },
    json: {
      addressType: "IPv4",
      endpoints: [
        {
          addresses: ["10.244.1.5"],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: "sim-node-1",
          zone: "a",
          hints: { forZones: [{ name: "a" }] },
          deprecatedTopology: { "kubernetes.io/hostname": "sim-node-1" },
        },
      ],
      ports: [{ name: "http", protocol: "TCP", port: 80, appProtocol: "http" }],
    },
  },
  {
    kind: "PriorityClass",
    apiVersion: "scheduling.k8s.io/v1",
    path: "/apis/scheduling.k8s.io/v1/priorityclasses",
    message: "k8s.io.api.scheduling.v1.PriorityClass",
    wire: { metadata: meta("pb-priority"), value: 0, globalDefault: false, description: "round trip", preemptionPolicy: "Never" },
    json: { value: 0, description: "round trip", preemptionPolicy: "Never" },
  },
];

function encode(apiVersion: string, kind: string, message: string, wire: Record<string, unknown>): Uint8Array {
  const type = root.lookupType(message);
  const raw = type.encode(type.fromObject(wire)).finish();
  const body = unknownType
    .encode(unknownType.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" }))
    .finish();
  return new Uint8Array([...MAGIC, ...body]);
}

function decode(body: Uint8Array, message: string): { typeMeta: { apiVersion: string; kind: string }; object: Record<string, unknown> } {
  expect([...body.subarray(0, 4)]).toEqual([...MAGIC]);
  const envelope = unknownType.toObject(unknownType.decode(body.subarray(4))) as {
    typeMeta: { apiVersion: string; kind: string };
    raw: Uint8Array;
  };
  const type = root.lookupType(message);
  return { typeMeta: envelope.typeMeta, object: type.toObject(type.decode(envelope.raw), { longs: Number }) };
}

let cluster: SimCluster;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
}, 60_000);
afterAll(async () => {
  await cluster.close();
});

describe("protobuf bodies of every served kind", { timeout: 30_000 }, () => {
  it.each(CASES.map((c) => [`${c.apiVersion} ${c.kind}`, c] as const))(
    "%s: a protobuf create reads back the same in JSON and in protobuf",
    async (_name, c) => {
      const created = await fetch(`${cluster.url}${c.path}`, {
        method: "POST",
        headers: { "content-type": PROTOBUF, accept: "application/json" },
        body: encode(c.apiVersion, c.kind, c.message, c.wire),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const name = (c.wire["metadata"] as { name: string }).name;
      const json = (await (await fetch(`${cluster.url}${c.path}/${name}`, { headers: { accept: "application/json" } })).json()) as Record<
        string,
        unknown
      >;
      expect(json).toMatchObject({ apiVersion: c.apiVersion, kind: c.kind, metadata: { name, labels: { app: "rt" } }, ...c.json });
      const response = await fetch(`${cluster.url}${c.path}/${name}`, { headers: { accept: PROTOBUF } });
      expect(response.headers.get("content-type")).toBe(PROTOBUF);
      const decoded = decode(new Uint8Array(await response.arrayBuffer()), c.message);
      expect(decoded.typeMeta).toEqual({ apiVersion: c.apiVersion, kind: c.kind });
      const { metadata: _metadata, data, ...rest } = c.wire;
      if (data === undefined) expect(decoded.object).toMatchObject(rest);
      else expect(JSON.parse(Buffer.from((decoded.object["data"] as { raw: Uint8Array }).raw).toString("utf8"))).toEqual(c.json["data"]);
      expect(decoded.object["metadata"]).toMatchObject({ name, labels: [{ key: "app", value: "rt" }] });
    },
  );
});

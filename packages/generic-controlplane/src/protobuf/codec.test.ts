import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { PROTOBUF_MAGIC, decodeProtobuf, encodeProtobuf, supportsProtobuf } from "./codec.js";
import { protobufKinds } from "./message-types.js";

const meta = {
  name: "demo",
  namespace: "default",
  uid: "6f1c1b1e-0000-4000-8000-000000000001",
  resourceVersion: "42",
  generation: 3,
  creationTimestamp: "2024-05-06T07:08:09Z",
  deletionTimestamp: "2024-05-06T08:00:00Z",
  deletionGracePeriodSeconds: 0,
  labels: { app: "demo", empty: "" },
  annotations: { "example.com/note": "hi" },
  ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u-1", controller: true, blockOwnerDeletion: false }],
  finalizers: ["example.com/keep"],
  managedFields: [
    {
      manager: "kubectl",
      operation: "Update",
      apiVersion: "v1",
      time: "2024-05-06T07:08:09Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:a": {} } },
    },
  ],
};

/** One object of every kind with protobuf support, using every field type the messages have. */
const samples: Array<Record<string, unknown>> = [
  {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team" },
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Active",
      conditions: [
        { type: "NamespaceContentRemaining", status: "False", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "R", message: "m" },
      ],
    },
  },
  { apiVersion: "v1", kind: "ConfigMap", metadata: meta, data: { a: "1", empty: "" }, binaryData: { bin: "AAEC/w==" }, immutable: false },
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: meta,
    data: { password: "czNjcjN0" },
    type: "Opaque",
    stringData: { extra: "x" },
    immutable: true,
  },
  {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: meta,
    spec: {
      hard: { configmaps: "10", "requests.cpu": "500m" },
      scopes: ["NotTerminating"],
      scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] },
    },
    status: { hard: { configmaps: "10" }, used: { configmaps: "3" } },
  },
  {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta,
    secrets: [{ name: "token", kind: "Secret" }],
    imagePullSecrets: [{ name: "registry" }],
    automountServiceAccountToken: false,
  },
  {
    apiVersion: "v1",
    kind: "Event",
    metadata: meta,
    involvedObject: {
      kind: "Pod",
      namespace: "default",
      name: "p",
      uid: "u",
      apiVersion: "v1",
      resourceVersion: "7",
      fieldPath: "spec.containers{app}",
    },
    reason: "Pulled",
    message: "pulled",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "2024-01-01T00:00:00Z",
    lastTimestamp: "2024-01-01T00:10:00Z",
    count: 4,
    type: "Normal",
    eventTime: "2024-01-01T00:00:00.123456Z",
    series: { count: 2, lastObservedTime: "2024-01-01T00:10:00.000001Z" },
    action: "Pull",
    related: { kind: "Node", name: "node-1" },
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
  },
  {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: meta,
    spec: {
      holderIdentity: "",
      leaseDurationSeconds: 15,
      acquireTime: "2024-01-01T00:00:00.000000Z",
      renewTime: "2024-01-01T00:00:05.654321Z",
      leaseTransitions: 0,
    },
  },
  {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: meta,
    eventTime: "2024-01-01T00:00:00.500000Z",
    series: { count: 3, lastObservedTime: "2024-01-01T00:01:00.000000Z" },
    reportingController: "example.com/c",
    reportingInstance: "c-0",
    action: "Sync",
    reason: "Synced",
    regarding: { kind: "ConfigMap", name: "c" },
    related: { kind: "Secret", name: "s" },
    note: "synced",
    type: "Normal",
    deprecatedSource: { component: "old" },
    deprecatedFirstTimestamp: "2024-01-01T00:00:00Z",
    deprecatedLastTimestamp: "2024-01-01T00:00:01Z",
    deprecatedCount: 2,
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta,
    rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] }],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta,
    subjects: [
      { kind: "ServiceAccount", name: "builder", namespace: "default" },
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
    ],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "aggregate" },
    rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
    aggregationRule: {
      clusterRoleSelectors: [
        { matchLabels: { "rbac.example.com/aggregate": "true" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }] },
      ],
    },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "b" },
    subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "aggregate" },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    metadata: {},
    spec: {
      resourceAttributes: {
        namespace: "default",
        verb: "get",
        resource: "configmaps",
        fieldSelector: { requirements: [{ key: "metadata.name", operator: "In", values: ["a"] }] },
        labelSelector: { rawSelector: "app=x" },
      },
    },
    status: { allowed: true, reason: "ok" },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: {},
    spec: {
      nonResourceAttributes: { path: "/healthz", verb: "get" },
      user: "alice",
      groups: ["devs"],
      extra: { "example.com/scopes": ["a", "b"], empty: [] },
      uid: "u-1",
    },
    status: { allowed: false, denied: true, reason: "no", evaluationError: "e" },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "LocalSubjectAccessReview",
    metadata: { namespace: "default" },
    spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "secrets" }, user: "bob" },
    status: { allowed: true },
  },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectRulesReview",
    metadata: {},
    spec: { namespace: "default" },
    status: {
      resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["x"] }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api"] }],
      incomplete: false,
    },
  },
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { name: "builder", namespace: "default" },
    spec: {
      audiences: ["https://kubernetes.default.svc"],
      expirationSeconds: 3600,
      boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "s", uid: "u" },
    },
    status: { token: "eyJ", expirationTimestamp: "2024-01-01T01:00:00Z" },
  },
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: {},
    spec: { token: "abc", audiences: ["api"] },
    status: {
      authenticated: true,
      user: {
        username: "system:serviceaccount:default:builder",
        uid: "u",
        groups: ["system:serviceaccounts"],
        extra: { "authentication.kubernetes.io/pod-name": ["p"] },
      },
      audiences: ["api"],
    },
  },
  {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
    metadata: {},
    status: { userInfo: { username: "admin", groups: ["system:masters", "system:authenticated"] } },
  },
  {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: meta,
    spec: {
      request: Buffer.from("-----BEGIN CERTIFICATE REQUEST-----").toString("base64"),
      signerName: "kubernetes.io/kube-apiserver-client",
      expirationSeconds: 0,
      usages: ["digital signature", "client auth"],
      username: "jane",
      uid: "u",
      groups: ["developers", "system:authenticated"],
      extra: { scopes: ["a", "b"] },
    },
    status: {
      conditions: [
        {
          type: "Approved",
          status: "True",
          reason: "AutoApproved",
          message: "ok",
          lastUpdateTime: "2024-01-01T00:00:00Z",
          lastTransitionTime: "2024-01-01T00:00:00Z",
        },
      ],
      certificate: Buffer.from("-----BEGIN CERTIFICATE-----").toString("base64"),
    },
  },
  {
    apiVersion: "v1",
    kind: "Status",
    metadata: { resourceVersion: "9", continue: "tok", remainingItemCount: 0 },
    status: "Failure",
    message: 'ConfigMap "x" is invalid',
    reason: "Invalid",
    details: {
      name: "x",
      kind: "ConfigMap",
      causes: [{ reason: "FieldValueInvalid", message: "bad", field: "data[]" }],
      retryAfterSeconds: 1,
    },
    code: 422,
  },
  {
    apiVersion: "v1",
    kind: "ConfigMapList",
    metadata: { resourceVersion: "10", continue: "c", remainingItemCount: 5 },
    items: [{ metadata: { name: "a" }, data: { k: "v" } }],
  },
];

describe("protobuf round trip", () => {
  it.each(samples.map((sample) => [`${String(sample["apiVersion"])} ${String(sample["kind"])}`, sample] as const))(
    "%s decodes to the JSON it was encoded from",
    (_name, sample) => {
      const bytes = encodeProtobuf(sample);
      expect([...bytes.subarray(0, 4)]).toEqual([...PROTOBUF_MAGIC]);
      expect(decodeProtobuf(bytes)).toEqual(sample);
    },
  );

  it("covers every object kind it supports", () => {
    const covered = new Set(samples.map((s) => `${String(s["apiVersion"])}/${String(s["kind"])}`));
    const objectKinds = protobufKinds().filter((k) => !k.endsWith("List") || k === "v1/ConfigMapList");
    expect(objectKinds.filter((k) => !covered.has(k))).toEqual([]);
  });

  it("keeps only whole seconds of a Time and microseconds of a MicroTime", () => {
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l", creationTimestamp: "2024-01-01T00:00:00.999Z" },
      spec: { renewTime: "2024-01-01T00:00:00.1234567Z" },
    };
    expect(decodeProtobuf(encodeProtobuf(lease as KubeObject))).toEqual({
      ...lease,
      metadata: { name: "l", creationTimestamp: "2024-01-01T00:00:00Z" },
      spec: { renewTime: "2024-01-01T00:00:00.123456Z" },
    });
  });
});

// Hand-built envelopes, written the way Go's generated marshallers write them: every string and
// embedded struct present even when empty, zero Time as an empty message.
const writer = () => protobuf.Writer.create();
function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra?: (w: protobuf.Writer) => void): Uint8Array {
  const typeMeta = writer().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).finish();
  const w = writer().uint32(0x0a).bytes(typeMeta).uint32(0x12).bytes(raw);
  if (extra) extra(w);
  else w.uint32(0x1a).string("").uint32(0x22).string("");
  const body = w.finish();
  return Uint8Array.from([...PROTOBUF_MAGIC, ...body]);
}

function goObjectMeta(name: string, namespace: string): Uint8Array {
  return writer()
    .uint32(0x0a)
    .string(name) // name
    .uint32(0x12)
    .string("") // generateName
    .uint32(0x1a)
    .string(namespace) // namespace
    .uint32(0x22)
    .string("") // selfLink
    .uint32(0x2a)
    .string("") // uid
    .uint32(0x32)
    .string("") // resourceVersion
    .uint32(0x38)
    .int64(0) // generation
    .uint32(0x42)
    .bytes(new Uint8Array()) // creationTimestamp: zero time
    .uint32(0x50)
    .int64(0) // deletionGracePeriodSeconds unset in Go would be absent; present here means 0
    .finish();
}

describe("decoding hand-built envelopes", () => {
  it("decodes a Go-style ConfigMap with empty strings, zero times and map entries", () => {
    const entry = writer().uint32(0x0a).string("a").uint32(0x12).string("b").finish();
    const binEntry = writer()
      .uint32(0x0a)
      .string("bin")
      .uint32(0x12)
      .bytes(Uint8Array.of(0, 1, 255))
      .finish();
    const raw = writer().uint32(0x0a).bytes(goObjectMeta("x", "default")).uint32(0x12).bytes(entry).uint32(0x1a).bytes(binEntry).finish();
    expect(decodeProtobuf(envelope("v1", "ConfigMap", raw))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", namespace: "default", deletionGracePeriodSeconds: 0 },
      data: { a: "b" },
      binaryData: { bin: "AAH/" },
    });
  });

  it("omits empty embedded structs and keeps pointer zeros", () => {
    const raw = writer()
      .uint32(0x0a)
      .bytes(goObjectMeta("ns", ""))
      .uint32(0x12)
      .bytes(new Uint8Array())
      .uint32(0x1a)
      .bytes(writer().uint32(0x0a).string("").finish())
      .finish();
    expect(decodeProtobuf(envelope("v1", "Namespace", raw))).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns", deletionGracePeriodSeconds: 0 },
    });
  });

  it.each([
    [Uint8Array.of(1, 2, 3), "BadRequest", /expected prefix \[107 56 115 0\]/],
    [new TextEncoder().encode('{"kind":"ConfigMap"}'), "BadRequest", /does not appear to be a protobuf message/],
    [Uint8Array.from([...PROTOBUF_MAGIC, 0x0a, 0x05, 0x01]), "BadRequest", /envelope/],
    [envelope("", "", new Uint8Array()), "BadRequest", /does not name an apiVersion and kind/],
    [
      envelope("apps/v1", "Deployment", new Uint8Array()),
      "UnsupportedMediaType",
      /protobuf is not supported for apps\/v1, Kind=Deployment/,
    ],
    [envelope("example.com/v1", "Widget", new Uint8Array()), "UnsupportedMediaType", /Kind=Widget/],
    [envelope("v1", "ConfigMap", Uint8Array.of(0x0a, 0x10, 0x01)), "BadRequest", /unable to decode v1, Kind=ConfigMap/],
    [envelope("v1", "ConfigMap", new Uint8Array(), (w) => w.uint32(0x1a).string("gzip")), "BadRequest", /content encoding "gzip"/],
  ])("rejects malformed or unsupported bodies (%#)", (body, code, message) => {
    expect(() => decodeProtobuf(body)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) as string }));
  });

  it("answers which kinds it supports", () => {
    expect(supportsProtobuf("v1", "ConfigMap")).toBe(true);
    expect(supportsProtobuf("rbac.authorization.k8s.io/v1", "ClusterRoleBinding")).toBe(true);
    expect(supportsProtobuf("apps/v1", "Deployment")).toBe(false);
    expect(() => encodeProtobuf({ apiVersion: "apps/v1", kind: "Deployment" })).toThrow(expect.objectContaining({ code: "NotAcceptable" }));
  });
});

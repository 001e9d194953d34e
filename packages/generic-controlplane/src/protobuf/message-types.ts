import protobuf from "protobufjs";
import { ALL_PROTO_SOURCES } from "./proto-source.js";

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const CORE = "k8s.io.api.core.v1";

/** The message of each `apiVersion` + `kind` this codec reads and writes. */
const MESSAGES_BY_KIND: Record<string, string | undefined> = {
  "v1/Namespace": `${CORE}.Namespace`,
  "v1/NamespaceList": `${CORE}.NamespaceList`,
  "v1/ConfigMap": `${CORE}.ConfigMap`,
  "v1/ConfigMapList": `${CORE}.ConfigMapList`,
  "v1/Secret": `${CORE}.Secret`,
  "v1/SecretList": `${CORE}.SecretList`,
  "v1/ResourceQuota": `${CORE}.ResourceQuota`,
  "v1/ResourceQuotaList": `${CORE}.ResourceQuotaList`,
  "v1/ServiceAccount": `${CORE}.ServiceAccount`,
  "v1/ServiceAccountList": `${CORE}.ServiceAccountList`,
  "v1/Event": `${CORE}.Event`,
  "v1/EventList": `${CORE}.EventList`,
  "v1/Status": `${META}.Status`,
  "coordination.k8s.io/v1/Lease": "k8s.io.api.coordination.v1.Lease",
  "coordination.k8s.io/v1/LeaseList": "k8s.io.api.coordination.v1.LeaseList",
  "events.k8s.io/v1/Event": "k8s.io.api.events.v1.Event",
  "events.k8s.io/v1/EventList": "k8s.io.api.events.v1.EventList",
  "rbac.authorization.k8s.io/v1/Role": "k8s.io.api.rbac.v1.Role",
  "rbac.authorization.k8s.io/v1/RoleList": "k8s.io.api.rbac.v1.RoleList",
  "rbac.authorization.k8s.io/v1/RoleBinding": "k8s.io.api.rbac.v1.RoleBinding",
  "rbac.authorization.k8s.io/v1/RoleBindingList": "k8s.io.api.rbac.v1.RoleBindingList",
  "rbac.authorization.k8s.io/v1/ClusterRole": "k8s.io.api.rbac.v1.ClusterRole",
  "rbac.authorization.k8s.io/v1/ClusterRoleList": "k8s.io.api.rbac.v1.ClusterRoleList",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "k8s.io.api.rbac.v1.ClusterRoleBinding",
  "rbac.authorization.k8s.io/v1/ClusterRoleBindingList": "k8s.io.api.rbac.v1.ClusterRoleBindingList",
  "authorization.k8s.io/v1/SelfSubjectAccessReview": "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
  "authorization.k8s.io/v1/SubjectAccessReview": "k8s.io.api.authorization.v1.SubjectAccessReview",
  "authorization.k8s.io/v1/LocalSubjectAccessReview": "k8s.io.api.authorization.v1.LocalSubjectAccessReview",
  "authorization.k8s.io/v1/SelfSubjectRulesReview": "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
  "authentication.k8s.io/v1/TokenRequest": "k8s.io.api.authentication.v1.TokenRequest",
  "authentication.k8s.io/v1/TokenReview": "k8s.io.api.authentication.v1.TokenReview",
  "authentication.k8s.io/v1/SelfSubjectReview": "k8s.io.api.authentication.v1.SelfSubjectReview",
  "certificates.k8s.io/v1/CertificateSigningRequest": "k8s.io.api.certificates.v1.CertificateSigningRequest",
  "certificates.k8s.io/v1/CertificateSigningRequestList": "k8s.io.api.certificates.v1.CertificateSigningRequestList",
};

export const TIME_TYPE = `${META}.Time`;
export const MICRO_TIME_TYPE = `${META}.MicroTime`;
export const FIELDS_V1_TYPE = `${META}.FieldsV1`;
export const RAW_EXTENSION_TYPE = "k8s.io.apimachinery.pkg.runtime.RawExtension";
/** Map fields are declared as repeated `*Entry` messages with `key` and `value` fields. */
export const MAP_ENTRY_SUFFIX = "Entry";
/** `ExtraValue` is a `[]string` in Go and JSON; protobuf wraps it in a message. */
export const STRING_LIST_TYPES: ReadonlySet<string> = new Set(["k8s.io.api.authorization.v1.ExtraValue", "k8s.io.api.authentication.v1.ExtraValue", "k8s.io.api.certificates.v1.ExtraValue"]);
export const UNKNOWN_TYPE = "k8s.io.apimachinery.pkg.runtime.Unknown";
export const QUANTITY_TYPE = "k8s.io.apimachinery.pkg.api.resource.Quantity";
export const INT_OR_STRING_TYPE = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";

/**
 * Fields that are pointers in Go (`*bool`, `*int32`, `*Struct`): a zero value on the wire was set
 * on purpose and appears in JSON. Every other scalar field is a Go value field with `omitempty`,
 * whose zero value is omitted.
 */
export const KEEP_ZERO_FIELDS: Set<string> = new Set([
  `${META}.ObjectMeta.deletionGracePeriodSeconds`,
  `${META}.OwnerReference.controller`,
  `${META}.OwnerReference.blockOwnerDeletion`,
  `${META}.ListMeta.remainingItemCount`,
  `${CORE}.ConfigMap.immutable`,
  `${CORE}.Secret.immutable`,
  `${CORE}.ServiceAccount.automountServiceAccountToken`,
  `${CORE}.ResourceQuotaSpec.scopeSelector`,
  `${CORE}.Event.series`,
  `${CORE}.Event.related`,
  "k8s.io.api.coordination.v1.LeaseSpec.holderIdentity",
  "k8s.io.api.coordination.v1.LeaseSpec.leaseDurationSeconds",
  "k8s.io.api.coordination.v1.LeaseSpec.acquireTime",
  "k8s.io.api.coordination.v1.LeaseSpec.renewTime",
  "k8s.io.api.coordination.v1.LeaseSpec.leaseTransitions",
  "k8s.io.api.coordination.v1.LeaseSpec.strategy",
  "k8s.io.api.coordination.v1.LeaseSpec.preferredHolder",
  "k8s.io.api.events.v1.Event.series",
  "k8s.io.api.events.v1.Event.related",
  "k8s.io.api.rbac.v1.ClusterRole.aggregationRule",
  "k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec.resourceAttributes",
  "k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec.nonResourceAttributes",
  "k8s.io.api.authorization.v1.ResourceAttributes.fieldSelector",
  "k8s.io.api.authorization.v1.ResourceAttributes.labelSelector",
  "k8s.io.api.authorization.v1.SubjectAccessReviewSpec.resourceAttributes",
  "k8s.io.api.authorization.v1.SubjectAccessReviewSpec.nonResourceAttributes",
  "k8s.io.api.authentication.v1.TokenRequestSpec.expirationSeconds",
  "k8s.io.api.authentication.v1.TokenRequestSpec.boundObjectRef",
  "k8s.io.api.certificates.v1.CertificateSigningRequestSpec.expirationSeconds",
]);

/** Go fields without `omitempty`: JSON always carries them, zero or not. */
export const ALWAYS_PRESENT_FIELDS: Set<string> = new Set([
  "k8s.io.api.rbac.v1.RoleRef.apiGroup",
  "k8s.io.api.rbac.v1.RoleRef.kind",
  "k8s.io.api.rbac.v1.RoleRef.name",
  "k8s.io.api.rbac.v1.Subject.kind",
  "k8s.io.api.rbac.v1.Subject.name",
  "k8s.io.api.authorization.v1.SubjectAccessReviewStatus.allowed",
  "k8s.io.api.authorization.v1.SubjectRulesReviewStatus.incomplete",
  "k8s.io.api.authentication.v1.TokenRequestStatus.token",
]);

/**
 * Go struct fields embedded with `json:",inline"` (an Ingress rule's `IngressRuleValue`): a field
 * of their own on the wire, their fields directly on the parent in JSON.
 */
export const INLINE_FIELDS: Set<string> = new Set();

let root: protobuf.Root | undefined;
const registeredSources: string[] = [];
/** Kinds added by `registerProtobufKinds`: decoded strictly (a field their messages do not declare is refused, not dropped). */
const STRICT_KINDS = new Set<string>();

function loadRoot(): protobuf.Root {
  if (root === undefined) {
    const parsed = new protobuf.Root();
    for (const source of [...ALL_PROTO_SOURCES, ...registeredSources]) protobuf.parse(source, parsed, { keepCase: true });
    parsed.resolveAll();
    root = parsed;
  }
  return root;
}

/** Protobuf messages for kinds served by resources registered outside this package. */
export interface ProtobufKinds {
  /** `.proto` text (proto2) with upstream's field numbers; maps declared as repeated `<Name>Entry { key = 1; value = 2; }`. */
  sources: readonly string[];
  /** `apiVersion/kind` → message, e.g. `"apps/v1/Deployment": "k8s.io.api.apps.v1.Deployment"`. */
  kinds: Readonly<Record<string, string>>;
  /** `<message>.<field>` of Go pointer fields, whose zero value on the wire was set on purpose and is kept in JSON. */
  keepZeroFields?: readonly string[];
  /** `<message>.<field>` of Go fields without `omitempty`. */
  alwaysPresentFields?: readonly string[];
  /** `<message>.<field>` of Go struct fields embedded with `json:",inline"`. */
  inlineFields?: readonly string[];
}

/**
 * Teaches the protobuf codec (request bodies of kubectl 1.32's typed creates, protobuf-only
 * responses) more kinds, process-wide. Their messages may declare only some of upstream's
 * fields: a body carrying a field they do not declare is refused with 415 rather than stored
 * without it.
 */
export function registerProtobufKinds(registration: ProtobufKinds): void {
  // Registering the same messages again (a second cluster in the process) changes nothing.
  const fresh = registration.sources.filter((source) => !registeredSources.includes(source));
  const candidate = new protobuf.Root();
  const sources = [...ALL_PROTO_SOURCES, ...registeredSources, ...fresh];
  for (const source of sources) protobuf.parse(source, candidate, { keepCase: true });
  candidate.resolveAll();
  for (const [kind, message] of Object.entries(registration.kinds)) {
    const known = MESSAGES_BY_KIND[kind];
    if (known !== undefined && (!STRICT_KINDS.has(kind) || known !== message)) throw new Error(`protobuf for ${kind} is already ${known}`);
    candidate.lookupType(message);
  }
  registeredSources.push(...fresh);
  root = candidate;
  for (const [kind, message] of Object.entries(registration.kinds)) {
    MESSAGES_BY_KIND[kind] = message;
    STRICT_KINDS.add(kind);
  }
  for (const field of registration.keepZeroFields ?? []) KEEP_ZERO_FIELDS.add(field);
  for (const field of registration.alwaysPresentFields ?? []) ALWAYS_PRESENT_FIELDS.add(field);
  for (const field of registration.inlineFields ?? []) INLINE_FIELDS.add(field);
}

/** Whether a kind's bodies must not carry fields its message does not declare. */
export function isStrictKind(apiVersion: string, kind: string): boolean {
  return STRICT_KINDS.has(`${apiVersion}/${kind}`);
}

export function lookupType(fullName: string): protobuf.Type {
  return loadRoot().lookupType(fullName);
}

/** The message type for an object's `apiVersion` and `kind`, if protobuf is supported for it. */
export function messageTypeFor(apiVersion: string, kind: string): protobuf.Type | undefined {
  const name = MESSAGES_BY_KIND[`${apiVersion}/${kind}`];
  return name === undefined ? undefined : lookupType(name);
}

/** `apiVersion/kind` pairs with protobuf support, e.g. `v1/ConfigMap`. */
export function protobufKinds(): string[] {
  return Object.keys(MESSAGES_BY_KIND).filter((kind) => MESSAGES_BY_KIND[kind] !== undefined);
}

export function fieldKey(type: protobuf.Type, field: protobuf.Field): string {
  return `${type.fullName.replace(/^\./, "")}.${field.name}`;
}

import protobuf from "protobufjs";
import { ALL_PROTO_SOURCES } from "./proto-source.js";

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const CORE = "k8s.io.api.core.v1";

/** The message of each `apiVersion` + `kind` this codec reads and writes. */
const BUILTIN_MESSAGES: Readonly<Record<string, string>> = {
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
export const STRING_LIST_TYPES: ReadonlySet<string> = new Set([
  "k8s.io.api.authorization.v1.ExtraValue",
  "k8s.io.api.authentication.v1.ExtraValue",
  "k8s.io.api.certificates.v1.ExtraValue",
]);
export const UNKNOWN_TYPE = "k8s.io.apimachinery.pkg.runtime.Unknown";
export const QUANTITY_TYPE = "k8s.io.apimachinery.pkg.api.resource.Quantity";
export const INT_OR_STRING_TYPE = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";

/**
 * Fields that are pointers in Go (`*bool`, `*int32`, `*Struct`): a zero value on the wire was set
 * on purpose and appears in JSON. Every other scalar field is a Go value field with `omitempty`,
 * whose zero value is omitted.
 */
const KEEP_ZERO_FIELDS: ReadonlySet<string> = new Set([
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
const ALWAYS_PRESENT_FIELDS: ReadonlySet<string> = new Set([
  "k8s.io.api.rbac.v1.RoleRef.apiGroup",
  "k8s.io.api.rbac.v1.RoleRef.kind",
  "k8s.io.api.rbac.v1.RoleRef.name",
  "k8s.io.api.rbac.v1.Subject.kind",
  "k8s.io.api.rbac.v1.Subject.name",
  "k8s.io.api.authorization.v1.SubjectAccessReviewStatus.allowed",
  "k8s.io.api.authorization.v1.SubjectRulesReviewStatus.incomplete",
  "k8s.io.api.authentication.v1.TokenRequestStatus.token",
]);

/** How a message's fields map to JSON beyond their types: Go's pointers, `omitempty` and inline structs, by `<message>.<field>`. */
export interface JsonFieldRules {
  /** Pointer fields: a zero value on the wire was set on purpose and appears in JSON. */
  readonly keepZero: ReadonlySet<string>;
  /** Go fields without `omitempty`: JSON always carries them, zero or not. */
  readonly alwaysPresent: ReadonlySet<string>;
  /**
   * Go struct fields embedded with `json:",inline"` (an Ingress rule's `IngressRuleValue`): a field
   * of their own on the wire, their fields directly on the parent in JSON.
   */
  readonly inline: ReadonlySet<string>;
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

function parseRoot(sources: readonly string[]): protobuf.Root {
  const root = new protobuf.Root();
  for (const source of sources) protobuf.parse(source, root, { keepCase: true });
  root.resolveAll();
  return root;
}

/** The protobuf messages a server reads and writes: what its codec looks up for each kind. */
export interface ProtobufMessages {
  readonly fieldRules: JsonFieldRules;
  /** Whether a kind's bodies must not carry fields its message does not declare. */
  isStrictKind(apiVersion: string, kind: string): boolean;
  /** A message type by its full name, e.g. `k8s.io.api.core.v1.ConfigMap`. */
  lookupType(fullName: string): protobuf.Type;
  /** The message type for an object's `apiVersion` and `kind`, if protobuf is supported for it. */
  messageTypeFor(apiVersion: string, kind: string): protobuf.Type | undefined;
  /** `apiVersion/kind` pairs with protobuf support, e.g. `v1/ConfigMap`. */
  kinds(): string[];
}

/** The built-in messages, parsed once for every scheme that has no kinds of its own. */
let builtinRoot: protobuf.Root | undefined;

/**
 * The protobuf messages one API server reads and writes (its `runtime.Scheme`, for protobuf): the
 * built-in kinds, plus the kinds registered with this server alone.
 */
export class ProtobufScheme implements ProtobufMessages {
  #root: protobuf.Root | undefined;
  readonly #sources: string[] = [];
  readonly #messages = new Map<string, string>(Object.entries(BUILTIN_MESSAGES));
  /** Registered kinds: decoded strictly (a field their messages do not declare is refused, not dropped). */
  readonly #strictKinds = new Set<string>();
  readonly #keepZero = new Set(KEEP_ZERO_FIELDS);
  readonly #alwaysPresent = new Set(ALWAYS_PRESENT_FIELDS);
  readonly #inline = new Set<string>();
  readonly fieldRules: JsonFieldRules = { keepZero: this.#keepZero, alwaysPresent: this.#alwaysPresent, inline: this.#inline };

  #loadRoot(): protobuf.Root {
    if (this.#root !== undefined) return this.#root;
    if (this.#sources.length === 0) return (builtinRoot ??= parseRoot(ALL_PROTO_SOURCES));
    return (this.#root = parseRoot([...ALL_PROTO_SOURCES, ...this.#sources]));
  }

  /**
   * Teaches this scheme more kinds. Their messages may declare only some of upstream's fields: a
   * body carrying a field they do not declare is refused with 415 rather than stored without it.
   * Registering the same messages again changes nothing; another message for a known kind is refused.
   */
  register(registration: ProtobufKinds): void {
    const fresh = registration.sources.filter((source) => !this.#sources.includes(source));
    const candidate = parseRoot([...ALL_PROTO_SOURCES, ...this.#sources, ...fresh]);
    for (const [kind, message] of Object.entries(registration.kinds)) {
      const known = this.#messages.get(kind);
      if (known !== undefined && (!this.#strictKinds.has(kind) || known !== message))
        throw new Error(`protobuf for ${kind} is already ${known}`);
      candidate.lookupType(message);
    }
    this.#sources.push(...fresh);
    this.#root = candidate;
    for (const [kind, message] of Object.entries(registration.kinds)) {
      this.#messages.set(kind, message);
      this.#strictKinds.add(kind);
    }
    for (const field of registration.keepZeroFields ?? []) this.#keepZero.add(field);
    for (const field of registration.alwaysPresentFields ?? []) this.#alwaysPresent.add(field);
    for (const field of registration.inlineFields ?? []) this.#inline.add(field);
  }

  /** Whether a kind's bodies must not carry fields its message does not declare. */
  isStrictKind(apiVersion: string, kind: string): boolean {
    return this.#strictKinds.has(`${apiVersion}/${kind}`);
  }

  lookupType(fullName: string): protobuf.Type {
    return this.#loadRoot().lookupType(fullName);
  }

  /** The message type for an object's `apiVersion` and `kind`, if protobuf is supported for it. */
  messageTypeFor(apiVersion: string, kind: string): protobuf.Type | undefined {
    const name = this.#messages.get(`${apiVersion}/${kind}`);
    return name === undefined ? undefined : this.lookupType(name);
  }

  /** `apiVersion/kind` pairs with protobuf support, e.g. `v1/ConfigMap`. */
  kinds(): string[] {
    return [...this.#messages.keys()];
  }
}

/** The built-in kinds alone. Nothing registers with it: each API server has its own scheme. */
export const BUILTIN_PROTOBUF: ProtobufMessages = new ProtobufScheme();

/** `apiVersion/kind` pairs with protobuf support in every server, e.g. `v1/ConfigMap`. */
export function protobufKinds(): string[] {
  return BUILTIN_PROTOBUF.kinds();
}

export function fieldKey(type: protobuf.Type, field: protobuf.Field): string {
  return `${type.fullName.replace(/^\./, "")}.${field.name}`;
}

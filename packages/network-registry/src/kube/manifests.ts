import type { KubeObject } from "@kubekit/generic-controlplane";
import { stringify } from "yaml";
import { MAX_DESCRIPTION_LENGTH } from "../claim-validation.js";
import { NETWORK_CLAIM_KIND, WELL_KNOWN_CLAIMS } from "../types.js";
import { ARBITER_NAME, KANA_GROUP, KANA_VERSION, NETWORK_ALLOCATION_KIND, NETWORK_ALLOCATIONS, NETWORK_CLAIMS } from "./api.js";

/*
 * What `kana install` applies: the two CRDs, the policy guarding the well-known claims and the
 * bootstrap ClusterRoles. Prefix checks are CEL rules over Kubernetes' IP library, with the
 * messages of Kubernetes' own CIDR validation, so a bad prefix is refused by the API server with
 * the same words a ServiceCIDR gets.
 */

type Schema = Record<string, unknown>;

/** Records per claim: enough for any component, and bounds the cost of the per-record CEL rules. */
const MAX_RECORDS = 24;

const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });

/** Canonical CIDR, checked as Kubernetes' `IsValidCIDR` does (same messages). */
function cidrSchema(description: string): Schema {
  return str(description, {
    maxLength: 43,
    "x-kubernetes-validations": [
      { rule: "isCIDR(self)", message: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)", reason: "FieldValueInvalid" },
      {
        rule: "!isCIDR(self) || string(cidr(self).masked()) == self",
        // Kubernetes names the canonical value; a message expression building it exceeds the CRD cost budget.
        message: "must be in canonical form (the network address without bits set beyond the prefix length; IPv6 in RFC 5952 form)",
        reason: "FieldValueInvalid",
      },
    ],
  });
}

const referenceSchema: Schema = {
  type: "object",
  description: 'The resource the record is for, e.g. {group: "", resource: services}.',
  required: ["group", "resource"],
  properties: {
    group: str("API group of the resource; empty for the core group.", { maxLength: 253 }),
    resource: str("Resource (plural name), e.g. services, pods or nodes.", { minLength: 1, maxLength: 63 }),
    namespace: str("Namespace of the referenced object, if it is namespaced.", { maxLength: 63 }),
    name: str("Name of the referenced object.", { maxLength: 253 }),
    uid: str("UID of the referenced object, to tell a re-created one apart.", { maxLength: 128 }),
  },
};

/** Status is written by the arbiter from checked specs, so its prefixes carry no rules (and no rule cost). */
function prefixSchema(description: string, checked: boolean): Schema {
  return checked ? cidrSchema(description) : str(description, { maxLength: 43 });
}

function parentSchema(checked: boolean): Schema {
  return {
    type: "object",
    description: "The record this one is delegated from: its claim and prefix.",
    required: ["claim", "prefix"],
    properties: {
      claim: str("Name of the NetworkClaim that holds the parent record.", { maxLength: 253 }),
      prefix: prefixSchema("Prefix of the parent record.", checked),
    },
  };
}

function recordSchema(inStatus: boolean): Schema {
  const properties: Schema = {
    reference: referenceSchema,
    prefix: prefixSchema("IP block in canonical CIDR notation, e.g. 10.96.0.0/12 or fd00:10:96::/112.", !inStatus),
    description: str("Free text about the record.", { maxLength: MAX_DESCRIPTION_LENGTH }),
    status: str(
      inStatus
        ? "Outcome: allocated (granted) or unavailable (carved out, or refused: then conflict says why)."
        : "Set to unavailable to carve the range out of the claim's own space; leave empty to request it.",
      { enum: inStatus ? ["allocated", "unavailable"] : ["unavailable"] },
    ),
    parent: parentSchema(!inStatus),
    delegateTo: {
      type: "array",
      description: 'Claims allowed to delegate from this record ("*" for any); the owning claim always may.',
      items: str("A claim name, or *.", { maxLength: 253 }),
      maxItems: 64,
      "x-kubernetes-list-type": "set",
    },
  };
  if (inStatus) {
    properties.date = str("When the record was granted or refused (RFC 3339).", { maxLength: 64 });
    properties.warnings = { type: "array", description: "Special-purpose address warnings.", items: { type: "string" } };
    properties.conflict = {
      type: "object",
      description: "Why the record was refused.",
      required: ["reason", "message"],
      properties: {
        reason: str("Overlap, SpecialPurpose, ParentNotFound, NotDelegable, OutsideParent or InsideExclusion."),
        message: str("Human-readable explanation."),
        relation: str("How the refused record relates to the record it collides with: equal, inside or contains."),
        claim: str("The claim holding the record that won."),
        prefix: str("The prefix of the record that won."),
        reference: referenceSchema,
        nearestFree: str("The nearest free block of the same size, when one exists."),
      },
    };
  }
  return {
    type: "object",
    description: inStatus ? "The outcome of one spec record." : "One requested IP block.",
    required: ["reference", "prefix"],
    properties,
  };
}

function crd(plural: string, kind: string, shortNames: string[], description: string, schema: Schema, columns: Schema[]): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${KANA_GROUP}` },
    spec: {
      group: KANA_GROUP,
      scope: "Cluster",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames, categories: ["kana", "network"] },
      versions: [
        {
          name: KANA_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [...columns, { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" }],
          schema: { openAPIV3Schema: { type: "object", description, ...schema } },
        },
      ],
    },
  };
}

/** The NetworkClaim CRD: a component's declared address space, decided by the arbiter. */
export const networkClaimCRD: KubeObject = crd(
  NETWORK_CLAIMS.resource,
  NETWORK_CLAIM_KIND,
  ["nc", "netclaim"],
  "NetworkClaim declares the IP blocks one component uses. The arbiter grants or refuses each record in claim creation order and writes the outcome to status.",
  {
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        description: "The requested IP blocks.",
        required: ["addressSpace"],
        properties: {
          addressSpace: {
            type: "array",
            description: "The claim's records, one per IP block.",
            maxItems: MAX_RECORDS,
            items: recordSchema(false),
          },
        },
      },
      status: {
        type: "object",
        description: "The arbiter's decision; written only by the arbiter.",
        properties: {
          addressSpace: {
            type: "array",
            description: "One outcome per spec record, in spec order.",
            maxItems: MAX_RECORDS,
            items: recordSchema(true),
          },
          sequence: {
            type: "integer",
            format: "int64",
            description: "Position in the arbiter's decision order (creation order); set on the first decision and never changed.",
          },
          term: {
            type: "integer",
            format: "int64",
            description: "The arbiter's leadership term (the Lease's leaseTransitions) this status was written in.",
          },
          observedGeneration: { type: "integer", format: "int64", description: "The metadata.generation this status decides." },
          phase: str("Allocated (every record granted), Conflict (at least one refused) or Invalid.", {
            enum: ["Allocated", "Conflict", "Invalid"],
          }),
          allocatedPrefixes: str("The granted prefixes, comma-separated (for display)."),
          message: str("Why the spec cannot be decided (phase Invalid)."),
          conditions: {
            type: "array",
            description: "Ready (every record granted) and Conflict (a record refused), as API conventions have conditions.",
            maxItems: 8,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            items: {
              type: "object",
              required: ["type", "status", "reason", "message", "lastTransitionTime"],
              properties: {
                type: str("Ready or Conflict."),
                status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }),
                reason: str("CamelCase reason: Allocated, Conflict, Invalid, NoConflict, or the conflict reason."),
                message: str("Details for people."),
                lastTransitionTime: str("When status last changed.", { format: "date-time" }),
                observedGeneration: { type: "integer", format: "int64", description: "The metadata.generation the condition was set for." },
              },
            },
          },
        },
      },
    },
  },
  [
    { name: "Prefixes", type: "string", jsonPath: ".status.allocatedPrefixes", description: "Granted prefixes" },
    { name: "Status", type: "string", jsonPath: ".status.phase", description: "Allocated, Conflict or Invalid" },
    { name: "Sequence", type: "integer", jsonPath: ".status.sequence", priority: 1, description: "Decision order" },
  ],
);

/** The NetworkAllocation CRD: one dynamically allocated block; the object is the request, the arbiter writes `status.prefix`. */
export const networkAllocationCRD: KubeObject = crd(
  NETWORK_ALLOCATIONS.resource,
  NETWORK_ALLOCATION_KIND,
  ["na", "netalloc"],
  "NetworkAllocation requests one free block of a pool for a claim; the arbiter picks the block and writes it to status.prefix.",
  {
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        description: "The request. Immutable.",
        required: ["claim", "pool", "prefixLength", "reference"],
        "x-kubernetes-validations": [
          { rule: "self == oldSelf", message: "field is immutable", reason: "FieldValueInvalid" },
          {
            rule: "!isCIDR(self.pool) || (self.prefixLength >= cidr(self.pool).prefixLength() && self.prefixLength <= (cidr(self.pool).ip().family() == 4 ? 32 : 128))",
            messageExpression:
              "'prefixLength must be between ' + string(cidr(self.pool).prefixLength()) + ' and ' + (cidr(self.pool).ip().family() == 4 ? '32' : '128') + ' for pool ' + self.pool",
            fieldPath: ".prefixLength",
            reason: "FieldValueInvalid",
          },
          {
            rule: "!has(self.prefix) || !isCIDR(self.prefix) || !isCIDR(self.pool) || (cidr(self.pool).containsCIDR(self.prefix) && cidr(self.prefix).prefixLength() == self.prefixLength)",
            message: "must be a block of the pool with the requested prefixLength",
            fieldPath: ".prefix",
            reason: "FieldValueInvalid",
          },
        ],
        properties: {
          claim: str("The claim that receives the block.", { minLength: 1, maxLength: 253 }),
          pool: cidrSchema("The pool: a granted record's prefix that the claim owns or that delegates to it."),
          prefixLength: { type: "integer", format: "int32", minimum: 0, maximum: 128, description: "Size of the block to allocate." },
          reference: referenceSchema,
          strategy: str("best-fit (default) keeps large blocks whole; first-fit takes the lowest address.", {
            enum: ["best-fit", "first-fit"],
          }),
          description: str("Free text about the block.", { maxLength: MAX_DESCRIPTION_LENGTH }),
          prefix: cidrSchema("A specific block of the pool instead of any free one; the object is then named after it (10.244.1.0-24)."),
        },
      },
      status: {
        type: "object",
        description: "The arbiter's decision; written only by the arbiter.",
        properties: {
          prefix: str("The allocated block."),
          parent: parentSchema(false),
          sequence: { type: "integer", format: "int64", description: "Position in the arbiter's decision order." },
          term: {
            type: "integer",
            format: "int64",
            description: "The arbiter's leadership term (the Lease's leaseTransitions) this status was written in.",
          },
          observedGeneration: { type: "integer", format: "int64", description: "The metadata.generation this status decides." },
          phase: str("Allocated or Failed.", { enum: ["Allocated", "Failed"] }),
          reason: str("On Failed: pool-exhausted, pool-not-found, not-delegable or invalid-argument."),
          message: str("Human-readable explanation."),
        },
      },
    },
  },
  [
    { name: "Prefix", type: "string", jsonPath: ".status.prefix", description: "Allocated block" },
    { name: "Pool", type: "string", jsonPath: ".spec.pool" },
    { name: "Claim", type: "string", jsonPath: ".spec.claim" },
    { name: "Status", type: "string", jsonPath: ".status.phase" },
  ],
);

/** Who may write each well-known claim (users and service accounts). */
export const WELL_KNOWN_CLAIM_WRITERS: Readonly<Record<string, readonly string[]>> = {
  "kube-apiserver": ["system:apiserver", "system:serviceaccount:kube-system:kube-apiserver"],
  "kube-controller-manager": ["system:kube-controller-manager", "system:serviceaccount:kube-system:kube-controller-manager"],
};

/** The arbiter's service account: it writes status and finalizers of every claim. */
export const ARBITER_SERVICE_ACCOUNT = "system:serviceaccount:kube-system:kana-arbiter";

const celList = (items: readonly string[]) => `[${items.map((s) => `'${s}'`).join(", ")}]`;

/**
 * Only the named writers and the arbiter (the user it runs as, `arbiterIdentity`) may create,
 * change or delete the well-known claims.
 */
export function wellKnownClaimsPolicyFor(arbiterIdentity: string): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "kana-well-known-claims" },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [KANA_GROUP],
            apiVersions: ["*"],
            operations: ["CREATE", "UPDATE", "DELETE"],
            resources: ["networkclaims", "networkclaims/status"],
          },
        ],
      },
      matchConditions: [{ name: "well-known-claim", expression: `request.name in ${celList(WELL_KNOWN_CLAIMS)}` }],
      variables: [
        {
          name: "writers",
          expression: `${WELL_KNOWN_CLAIMS.map((name) => `request.name == '${name}' ? ${celList([...(WELL_KNOWN_CLAIM_WRITERS[name] ?? []), arbiterIdentity])}`).join(" : ")} : []`,
        },
      ],
      validations: [
        {
          expression: "request.userInfo.username in variables.writers",
          messageExpression: "'NetworkClaim ' + request.name + ' is well-known: ' + request.userInfo.username + ' may not write it'",
          reason: "Forbidden",
        },
      ],
    },
  };
}

/** The policy for an arbiter running as {@link ARBITER_SERVICE_ACCOUNT}. */
export const wellKnownClaimsPolicy: KubeObject = wellKnownClaimsPolicyFor(ARBITER_SERVICE_ACCOUNT);

/** The annotation naming a claim's owner: set by its creator to its own user name. */
export const CLAIM_OWNER_ANNOTATION = "kana.kubekit.io/owner";

const ownerOf = (object: string) =>
  `(has(${object}.metadata.annotations) && '${CLAIM_OWNER_ANNOTATION}' in ${object}.metadata.annotations ? ${object}.metadata.annotations['${CLAIM_OWNER_ANNOTATION}'] : '')`;

/**
 * A claim created with the owner annotation naming its creator may be changed or deleted only by
 * that user (the arbiter, `arbiterIdentity`, still writes its status and finalizer); the
 * annotation cannot name anyone else at creation, nor change later. Claims without it are
 * governed by RBAC alone.
 */
export function claimOwnerPolicyFor(arbiterIdentity: string): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "kana-claim-owner" },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          { apiGroups: [KANA_GROUP], apiVersions: ["*"], operations: ["CREATE", "UPDATE", "DELETE"], resources: ["networkclaims"] },
        ],
      },
      matchConditions: [{ name: "not-the-arbiter", expression: `request.userInfo.username != '${arbiterIdentity}'` }],
      validations: [
        {
          expression: `request.operation != 'CREATE' || ${ownerOf("object")} == '' || ${ownerOf("object")} == request.userInfo.username`,
          messageExpression: `'${CLAIM_OWNER_ANNOTATION} must name the user creating the claim (' + request.userInfo.username + ')'`,
          reason: "Forbidden",
        },
        {
          expression: `request.operation == 'CREATE' || ${ownerOf("oldObject")} == '' || ${ownerOf("oldObject")} == request.userInfo.username`,
          messageExpression: `'NetworkClaim ' + request.name + ' is owned by ' + ${ownerOf("oldObject")} + ': ' + request.userInfo.username + ' may not change or delete it'`,
          reason: "Forbidden",
        },
        {
          expression: `request.operation != 'UPDATE' || ${ownerOf("oldObject")} == ${ownerOf("object")}`,
          messageExpression: `'the owner of NetworkClaim ' + request.name + ' (${CLAIM_OWNER_ANNOTATION}) cannot change'`,
          reason: "Forbidden",
        },
      ],
    },
  };
}

export const claimOwnerPolicyBinding: KubeObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "kana-claim-owner" },
  spec: { policyName: "kana-claim-owner", validationActions: ["Deny"] },
};

export const wellKnownClaimsPolicyBinding: KubeObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "kana-well-known-claims" },
  spec: { policyName: "kana-well-known-claims", validationActions: ["Deny"] },
};

/** Words of the refusal of a status written in a leadership term that is over (the arbiter recognises it). */
export const STALE_TERM_REFUSAL = "was decided in leadership term";

/**
 * Fences the arbiter's status writes: a status carrying `term` is accepted only while the
 * arbiter's Lease (kube-system/kana-arbiter) is in that term. A leader that lost the Lease with
 * writes in flight (frozen, or on a slow network) cannot land them after the new leader's.
 */
const arbiterTermPolicy: KubeObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "kana-arbiter-term" },
  spec: {
    failurePolicy: "Fail",
    paramKind: { apiVersion: "coordination.k8s.io/v1", kind: "Lease" },
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [KANA_GROUP],
          apiVersions: ["*"],
          operations: ["UPDATE"],
          resources: ["networkclaims/status", "networkallocations/status"],
        },
      ],
    },
    variables: [{ name: "term", expression: "has(params.spec.leaseTransitions) ? params.spec.leaseTransitions : 0" }],
    validations: [
      {
        expression: "!has(object.status) || !has(object.status.term) || object.status.term == variables.term",
        messageExpression: `'the status of ' + request.name + ' ${STALE_TERM_REFUSAL} ' + string(object.status.term) + ', but the Lease kube-system/${ARBITER_NAME} is in term ' + string(variables.term)`,
        reason: "Forbidden",
      },
    ],
  },
};

const arbiterTermPolicyBinding: KubeObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "kana-arbiter-term" },
  spec: {
    policyName: "kana-arbiter-term",
    validationActions: ["Deny"],
    paramRef: { name: ARBITER_NAME, namespace: "kube-system", parameterNotFoundAction: "Allow" },
  },
};

const READ = ["get", "list", "watch"];

function clusterRole(name: string, rules: object[], labels?: Record<string, string>): KubeObject {
  return { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name, ...(labels ? { labels } : {}) }, rules };
}

/** Components that claim ranges and request allocations; never status. */
export const claimantRole: KubeObject = clusterRole("kana:claimant", [
  { apiGroups: [KANA_GROUP], resources: ["networkclaims"], verbs: [...READ, "create", "update", "patch", "delete"] },
  { apiGroups: [KANA_GROUP], resources: ["networkallocations"], verbs: [...READ, "create", "delete"] },
]);

/** Read-only; aggregated into the built-in `view` role. */
export const viewerRole: KubeObject = clusterRole(
  "kana:viewer",
  [{ apiGroups: [KANA_GROUP], resources: ["networkclaims", "networkallocations"], verbs: READ }],
  { "rbac.authorization.k8s.io/aggregate-to-view": "true" },
);

/** The arbiter: the only writer of status; finalizers; Events; its Lease. */
export const arbiterRole: KubeObject = clusterRole("kana:arbiter", [
  { apiGroups: [KANA_GROUP], resources: ["networkclaims", "networkallocations"], verbs: [...READ, "update", "patch"] },
  { apiGroups: [KANA_GROUP], resources: ["networkclaims/status", "networkallocations/status"], verbs: ["update", "patch"] },
  { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch", "update"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
]);

/** Binds `kana:arbiter` to the user the arbiter runs as (a service account by its own kind). */
export function arbiterRoleBinding(arbiterIdentity: string): KubeObject {
  const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(arbiterIdentity);
  const subject =
    serviceAccount === null
      ? { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: arbiterIdentity }
      : { kind: "ServiceAccount", namespace: serviceAccount[1], name: serviceAccount[2] };
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "kana:arbiter" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kana:arbiter" },
    subjects: [subject],
  };
}

export interface InstallManifestOptions {
  /** The user the arbiter runs as (default {@link ARBITER_SERVICE_ACCOUNT}): the policy lets it write the well-known claims' status, and `kana:arbiter` is bound to it. */
  arbiterIdentity?: string;
}

/** Everything `kana install` applies, CRDs first. */
export function installManifests(options: InstallManifestOptions = {}): KubeObject[] {
  const identity = options.arbiterIdentity ?? ARBITER_SERVICE_ACCOUNT;
  return structuredClone([
    networkClaimCRD,
    networkAllocationCRD,
    wellKnownClaimsPolicyFor(identity),
    wellKnownClaimsPolicyBinding,
    claimOwnerPolicyFor(identity),
    claimOwnerPolicyBinding,
    arbiterTermPolicy,
    arbiterTermPolicyBinding,
    claimantRole,
    viewerRole,
    arbiterRole,
    arbiterRoleBinding(identity),
  ]);
}

/** {@link installManifests} as one multi-document YAML stream. */
export function installManifestsYAML(options: InstallManifestOptions = {}): string {
  return installManifests(options)
    .map((object) => stringify(object))
    .join("---\n");
}

import { cloneJson } from "../patch/json-value.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { defineResource } from "../resources/define.js";
import { ageColumn } from "../resources/printer-columns.js";
import { kindSchema, stringListSchema, stringSchema, timeSchema } from "../resources/schema-parts.js";
import {
  CERTIFICATES_GROUP,
  CONDITION_APPROVED,
  CONDITION_DENIED,
  hasCondition,
  type CertificateSigningRequest,
  type CertificateSigningRequestCondition,
} from "./types.js";
import { validateCertificateSigningRequest, validateCertificateSigningRequestUpdate } from "./validation.js";

const isApproval = (c: CertificateSigningRequestCondition) => c.type === CONDITION_APPROVED || c.type === CONDITION_DENIED;

/** upstream `populateConditionTimestamps`: a new or changed condition is stamped now. */
function stampConditions(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  for (const condition of csr.status?.conditions ?? []) {
    condition.lastUpdateTime ??= now;
    if (condition.lastTransitionTime === undefined) {
      const before = old?.status?.conditions?.find((c) => c.type === condition.type);
      condition.lastTransitionTime =
        before !== undefined && before.status === condition.status && before.lastTransitionTime !== undefined
          ? before.lastTransitionTime
          : now;
    }
  }
}

/**
 * Main resource and `/status` (upstream `csrStatusStrategy`): the spec stays as created, and
 * Approved/Denied are written through `/approval` only, so a signer cannot approve what it signs.
 */
function prepareForUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest): void {
  csr.spec = cloneJson(old.spec) ?? {};
  if (csr.status === undefined && old.status === undefined) return;
  stampConditions(csr, old);
  const approvals = (old.status?.conditions ?? []).filter(isApproval);
  const others = (csr.status?.conditions ?? []).filter((c) => !isApproval(c));
  const conditions = [...cloneJson(approvals), ...others];
  csr.status = { ...csr.status };
  if (conditions.length > 0) csr.status.conditions = conditions;
  else delete csr.status.conditions;
}

/** `/approval` (upstream `csrApprovalStrategy`): only the conditions change. */
export function prepareApprovalUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest): void {
  stampConditions(csr, old);
  const conditions = csr.status?.conditions;
  csr.spec = cloneJson(old.spec) ?? {};
  csr.status = cloneJson(old.status) ?? {};
  if (conditions !== undefined && conditions.length > 0) csr.status.conditions = conditions;
  else delete csr.status.conditions;
}

const conditionSchema: JSONSchemaProps = {
  type: "object",
  description: "CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object",
  required: ["type", "status"],
  properties: {
    type: stringSchema('type of the condition. Known conditions are "Approved", "Denied", and "Failed".'),
    status: stringSchema(
      'status of the condition, one of True, False, Unknown. Approved, Denied, and Failed conditions may not be "False" or "Unknown".',
    ),
    reason: stringSchema("reason indicates a brief reason for the request state"),
    message: stringSchema("message contains a human readable message with details about the request state"),
    lastUpdateTime: timeSchema("lastUpdateTime is the time of the last update to this condition"),
    lastTransitionTime: timeSchema("lastTransitionTime is the time the condition last transitioned from one status to another."),
  },
};

const schema = kindSchema({
  group: CERTIFICATES_GROUP,
  version: "v1",
  kind: "CertificateSigningRequest",
  description:
    "CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.",
  required: ["spec"],
  properties: {
    spec: {
      type: "object",
      description:
        "spec contains the certificate request, and is immutable after creation. Only the request, signerName, expirationSeconds, and usages fields can be set on creation.",
      required: ["request", "signerName"],
      properties: {
        request: {
          type: "string",
          format: "byte",
          description: 'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block.',
          "x-kubernetes-list-type": "atomic",
        },
        signerName: stringSchema("signerName indicates the requested signer, and is a qualified name."),
        expirationSeconds: {
          type: "integer",
          format: "int32",
          description: "expirationSeconds is the requested duration of validity of the issued certificate.",
        },
        usages: {
          ...stringListSchema("usages specifies a set of key usages requested in the issued certificate."),
          "x-kubernetes-list-type": "atomic",
        },
        username: stringSchema(
          "username contains the name of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.",
        ),
        uid: stringSchema(
          "uid contains the uid of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.",
        ),
        groups: {
          ...stringListSchema(
            "groups contains group membership of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.",
          ),
          "x-kubernetes-list-type": "atomic",
        },
        extra: {
          type: "object",
          description:
            "extra contains extra attributes of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.",
          additionalProperties: stringListSchema(""),
        },
      },
    },
    status: {
      type: "object",
      description:
        "status contains information about whether the request is approved or denied, and the certificate issued by the signer, or the failure condition indicating signer failure.",
      properties: {
        conditions: {
          type: "array",
          description: 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".',
          items: conditionSchema,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["type"],
        },
        certificate: {
          type: "string",
          format: "byte",
          description: "certificate is populated with an issued certificate by the signer after an Approved condition is present.",
          "x-kubernetes-list-type": "atomic",
        },
      },
    },
  },
});

/** upstream's CONDITION column: Approved/Denied, then Issued or Failed (`Pending` without either). */
function conditionCell(csr: CertificateSigningRequest): string {
  const states: string[] = [];
  for (const type of [CONDITION_APPROVED, CONDITION_DENIED, "Failed"]) if (hasCondition(csr, type)) states.push(type);
  if ((csr.status?.certificate ?? "") !== "") states.push("Issued");
  return states.length === 0 ? "Pending" : states.join(",");
}

function durationCell(csr: CertificateSigningRequest): string {
  const seconds = csr.spec?.expirationSeconds;
  if (seconds === undefined) return "<none>";
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** certificates.k8s.io/v1 CertificateSigningRequest, with `/status` and `/approval`. */
export const certificateSigningRequestsResource = defineResource<CertificateSigningRequest>({
  group: CERTIFICATES_GROUP,
  version: "v1",
  kind: "CertificateSigningRequest",
  plural: "certificatesigningrequests",
  singular: "certificatesigningrequest",
  scope: "Cluster",
  shortNames: ["csr"],
  schema,
  statusSubresource: true,
  subresources: [{ name: "approval", verbs: ["get", "update", "patch"] }],
  printerColumns: [
    ageColumn(),
    {
      name: "SignerName",
      type: "string",
      description: "signerName indicates the requested signer.",
      cell: (csr) => csr.spec?.signerName ?? "",
    },
    {
      name: "Requestor",
      type: "string",
      description: "username of the user that created the request.",
      cell: (csr) => csr.spec?.username ?? "",
    },
    { name: "RequestedDuration", type: "string", description: "expirationSeconds as a duration.", cell: durationCell },
    { name: "Condition", type: "string", description: "The request's approval and issuance state.", cell: conditionCell },
  ],
  fieldSelectors: { "spec.signerName": (csr) => csr.spec?.signerName ?? "" },
  strategy: {
    prepareForCreate: (csr) => {
      delete csr.status;
    },
    prepareForUpdate,
    validate: validateCertificateSigningRequest,
    validateUpdate: validateCertificateSigningRequestUpdate,
  },
});

import type { KubeObject } from "../api/types.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { booleanSchema, kindSchema, localObjectReferenceSchema, objectReferenceSchema } from "./schema-parts.js";

export interface ServiceAccount extends KubeObject {
  secrets?: Array<Record<string, unknown>>;
  imagePullSecrets?: Array<{ name?: string }>;
  automountServiceAccountToken?: boolean;
}

/** Upstream keeps only the name of each secret reference, so a reference cannot point into another namespace. */
function cleanSecretReferences(object: ServiceAccount): void {
  if (!Array.isArray(object.secrets)) return;
  object.secrets = object.secrets.map((ref) => {
    const name = asRecord(ref)?.name;
    return name === undefined ? {} : { name };
  });
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  description:
    "ServiceAccount binds together a name understood by users and perhaps by peripheral systems, a principal that can be authenticated and authorized, and a set of secrets.",
  properties: {
    automountServiceAccountToken: booleanSchema(
      "AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.",
    ),
    imagePullSecrets: {
      type: "array",
      description:
        "ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount. Unlike Secrets they can not be mounted in the pod; only the kubelet reads them. See https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod",
      items: localObjectReferenceSchema(
        "LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.",
      ),
      "x-kubernetes-list-type": "atomic",
    },
    secrets: {
      type: "array",
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Deprecated: not meant for auto-generation of service account token secrets; use the "kubernetes.io/enforce-mountable-secrets" annotation to restrict mounting. See https://kubernetes.io/docs/concepts/configuration/secret',
      items: objectReferenceSchema("ObjectReference contains enough information to let you inspect or modify the referred object."),
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-list-type": "map",
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
    },
  },
});

/** core/v1 ServiceAccount. */
export const serviceAccountsResource = defineResource<ServiceAccount>({
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  scope: "Namespaced",
  shortNames: ["sa"],
  schema,
  printerColumns: [
    {
      name: "Secrets",
      type: "string",
      description: "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
      cell: (object) => (Array.isArray(object.secrets) ? object.secrets.length : 0),
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: cleanSecretReferences,
  },
});

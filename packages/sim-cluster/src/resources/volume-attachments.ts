import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldInvalid, fieldRequired, isDNS1123Subdomain, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { validateCSIDriverName } from "./csi-drivers.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface VolumeAttachment extends KubeObject {
  spec?: { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string; inlineVolumeSpec?: Record<string, unknown> } };
  status?: {
    attached?: boolean;
    attachmentMetadata?: Record<string, string>;
    attachError?: Record<string, unknown>;
    detachError?: Record<string, unknown>;
  };
}

/** ValidateVolumeAttachment: an attacher, exactly one source and a node. */
export function validateVolumeAttachment(attachment: VolumeAttachment): FieldError[] {
  const spec = attachment.spec ?? {};
  const errors = validateCSIDriverName(spec.attacher ?? "", "spec.attacher");
  const source = spec.source ?? {};
  const sources = [source.persistentVolumeName, source.inlineVolumeSpec].filter((s) => s !== undefined).length;
  if (sources !== 1) errors.push(fieldRequired("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  if (source.persistentVolumeName !== undefined) {
    const pv = source.persistentVolumeName;
    if (pv === "") errors.push(fieldRequired("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"));
    else errors.push(...isDNS1123Subdomain(pv).map((m) => fieldInvalid("spec.source.persistentVolumeName", pv, m)));
  }
  const node = spec.nodeName ?? "";
  if (node === "") errors.push(fieldRequired("spec.nodeName"));
  else errors.push(...isDNS1123Subdomain(node).map((m) => fieldInvalid("spec.nodeName", node, m)));
  return errors;
}

/** ValidateVolumeAttachmentUpdate: the spec never changes. */
export function validateVolumeAttachmentUpdate(attachment: VolumeAttachment, old: VolumeAttachment): FieldError[] {
  const errors = validateVolumeAttachment(attachment);
  if (!isDeepStrictEqual(attachment.spec, old.spec)) errors.push(fieldInvalid("spec", attachment.spec, "field is immutable"));
  return errors;
}

const schema = componentSchema("io.k8s.api.storage.v1.VolumeAttachment");

/** storage.k8s.io/v1 VolumeAttachment (cluster-scoped, with /status); no attacher acts on it. */
export const volumeAttachmentsResource = defineResource<VolumeAttachment>({
  group: "storage.k8s.io",
  version: "v1",
  kind: "VolumeAttachment",
  plural: "volumeattachments",
  singular: "volumeattachment",
  scope: "Cluster",
  statusSubresource: true,
  schema,
  printerColumns: [
    {
      name: "Attacher",
      type: "string",
      description: "attacher indicates the name of the volume driver that MUST handle this request.",
      cell: (v) => v.spec?.attacher ?? "",
    },
    {
      name: "PV",
      type: "string",
      description: "persistentVolumeName represents the name of the persistent volume to attach.",
      cell: (v) => v.spec?.source?.persistentVolumeName ?? "",
    },
    {
      name: "Node",
      type: "string",
      description: "nodeName represents the node that the volume should be attached to.",
      cell: (v) => v.spec?.nodeName ?? "",
    },
    {
      name: "Attached",
      type: "boolean",
      description: "attached indicates the volume is successfully attached.",
      cell: (v) => v.status?.attached ?? false,
    },
    ageColumn(),
  ],
  strategy: {
    // The attacher reports status; a new object starts unattached (its `attached` is never omitted).
    prepareForCreate: (attachment) => {
      attachment.status = { attached: false };
    },
    validate: validateVolumeAttachment,
    validateUpdate: validateVolumeAttachmentUpdate,
  },
});

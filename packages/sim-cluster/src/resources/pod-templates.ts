import type { KubeObject } from "@kubekit/generic-controlplane";
import { validateLabels, type FieldError } from "@kubekit/generic-controlplane/registry";
import { defineResource } from "./define.js";
import { defaultPodSpec, validatePodSpec, type PodTemplateSpec } from "./pod-spec.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface PodTemplate extends KubeObject {
  template?: PodTemplateSpec;
}

function prepare(podTemplate: PodTemplate): void {
  if (podTemplate.template !== undefined) defaultPodSpec((podTemplate.template.spec ??= {}));
}

/** ValidatePodTemplate: the template's labels and pod spec. */
export function validatePodTemplate(podTemplate: PodTemplate): FieldError[] {
  return [
    ...validateLabels(podTemplate.template?.metadata?.labels, "template.metadata.labels"),
    ...validatePodSpec(podTemplate.template?.spec, "template.spec"),
  ];
}

function podLabels(podTemplate: PodTemplate): string {
  const entries = Object.entries(podTemplate.template?.metadata?.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

const schema = componentSchema("io.k8s.api.core.v1.PodTemplate");

/** v1 PodTemplate. */
export const podTemplatesResource = defineResource<PodTemplate>({
  group: "",
  version: "v1",
  kind: "PodTemplate",
  plural: "podtemplates",
  singular: "podtemplate",
  scope: "Namespaced",
  schema,
  printerColumns: [
    {
      name: "Containers",
      type: "string",
      description: "Names of each container in the template.",
      cell: (pt) => (pt.template?.spec?.containers ?? []).map((c) => c.name ?? "").join(","),
    },
    {
      name: "Images",
      type: "string",
      description: "Images referenced by each container in the template.",
      cell: (pt) => (pt.template?.spec?.containers ?? []).map((c) => c.image ?? "").join(","),
    },
    { name: "Pod Labels", type: "string", description: "The labels of the pods the template describes.", cell: podLabels },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validatePodTemplate,
    validateUpdate: validatePodTemplate,
  },
});

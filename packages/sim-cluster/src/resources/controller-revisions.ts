import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldInvalid, validateImmutableField, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

/** An apps/v1 ControllerRevision: an immutable snapshot of a controller's template, numbered. */
export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

/** ValidateControllerRevision: the revision is a non-negative number. */
export function validateControllerRevision(revision: ControllerRevision): FieldError[] {
  if (typeof revision.revision !== "number" || revision.revision < 0)
    return [fieldInvalid("revision", revision.revision ?? 0, "must be greater than or equal to 0")];
  return [];
}

/** ValidateControllerRevisionUpdate: the data is fixed once created. */
export function validateControllerRevisionUpdate(revision: ControllerRevision, old: ControllerRevision): FieldError[] {
  return [...validateControllerRevision(revision), ...validateImmutableField(revision.data ?? null, old.data ?? null, "data")];
}

/** kubectl's CONTROLLER column: the controller reference as `<kind>.<group>/<name>`. */
function controllerCell(revision: ControllerRevision): string {
  const ref = revision.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (ref === undefined) return "<none>";
  const group = ref.apiVersion.includes("/") ? ref.apiVersion.split("/")[0]! : "";
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ""}/${ref.name}`;
}

const schema = componentSchema("io.k8s.api.apps.v1.ControllerRevision");

/** apps/v1 ControllerRevision, which DaemonSets keep their template history in. */
export const controllerRevisionsResource = defineResource<ControllerRevision>({
  group: "apps",
  version: "v1",
  kind: "ControllerRevision",
  plural: "controllerrevisions",
  singular: "controllerrevision",
  scope: "Namespaced",
  schema,
  printerColumns: [
    { name: "Controller", type: "string", description: "The controller of this revision.", cell: controllerCell },
    {
      name: "Revision",
      type: "integer",
      description: "Revision indicates the revision of the state represented by Data.",
      cell: (r) => r.revision ?? 0,
    },
    ageColumn(),
  ],
  strategy: { validate: validateControllerRevision, validateUpdate: validateControllerRevisionUpdate },
});

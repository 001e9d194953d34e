import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { META_V1, patchMetaSchemas, schemaRef } from "../patch/meta-schemas.js";
import { withObjectMeta } from "../patch/schema-walk.js";
import type { GVK } from "./model.js";
import { listKindOf } from "./names.js";

/** The meta/v1 definitions operations refer to. */
export const STATUS = `${META_V1}.Status`;
export const WATCH_EVENT = `${META_V1}.WatchEvent`;
export const DELETE_OPTIONS = `${META_V1}.DeleteOptions`;
export const PATCH = `${META_V1}.Patch`;

/** The definition of a resource's kind: its schema (or an open object) with ObjectMeta and its GVK. */
export function kindSchema(definition: ResourceDefinition, gvk: GVK): JSONSchemaProps {
  const base: JSONSchemaProps = definition.openapi?.schema ??
    definition.schema ?? {
      type: "object",
      description: `${definition.kind} objects; this resource publishes no schema.`,
      "x-kubernetes-preserve-unknown-fields": true,
    };
  return { ...withObjectMeta(base), "x-kubernetes-group-version-kind": [gvk] };
}

/** The definition of a resource's list kind (`ConfigMapList`): items of the kind, and ListMeta. */
export function listKindSchema(definition: ResourceDefinition, itemName: string, gvk: GVK): JSONSchemaProps {
  return {
    type: "object",
    description: `${listKindOf(definition)} is a list of ${definition.kind} objects.`,
    required: ["items"],
    properties: {
      apiVersion: patchMetaSchemas[STATUS]?.properties?.apiVersion ?? { type: "string" },
      items: { type: "array", description: `Items is the list of ${definition.kind} objects.`, items: { $ref: schemaRef(itemName) } },
      kind: patchMetaSchemas[STATUS]?.properties?.kind ?? { type: "string" },
      metadata: { $ref: schemaRef(`${META_V1}.ListMeta`), description: "Standard list metadata." },
    },
    "x-kubernetes-group-version-kind": [{ ...gvk, kind: listKindOf(definition) }],
  };
}

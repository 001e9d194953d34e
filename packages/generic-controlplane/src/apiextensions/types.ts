import type { WebhookClientConfig } from "../webhook/client-config.js";
import type { KubeObject } from "../api/types.js";
import type { JSONSchemaProps } from "../schema/types.js";

/** apiextensions.k8s.io/v1 CustomResourceDefinition, as stored and served. */
export const CRD_GROUP = "apiextensions.k8s.io";
export const CRD_VERSION = "v1";
export const CRD_PLURAL = "customresourcedefinitions";

/** Deletes a CRD's custom resources before the CRD itself goes (upstream `CustomResourceCleanupFinalizer`). */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface SelectableField {
  jsonPath?: string;
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

/** A conversion webhook is reached as an admission webhook is. */
export type { WebhookClientConfig } from "../webhook/client-config.js";

export interface CustomResourceConversion {
  strategy?: string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
}

export interface CustomResourceDefinitionSpec {
  group?: string;
  names?: CustomResourceDefinitionNames;
  scope?: string;
  versions?: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export type ConditionStatus = "True" | "False" | "Unknown";

export interface CustomResourceDefinitionCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec?: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

export function findCondition(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === "True";
}

/**
 * upstream `SetCRDCondition`: replaces the condition of that type, keeping its transition time
 * when the status is unchanged.
 */
export function setCondition(crd: CustomResourceDefinition, condition: CustomResourceDefinitionCondition, now: string): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === condition.type);
  const existing = index >= 0 ? conditions[index] : undefined;
  const lastTransitionTime =
    existing !== undefined && existing.status === condition.status && existing.lastTransitionTime ? existing.lastTransitionTime : now;
  const next = { ...condition, lastTransitionTime };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
}

/** The version objects are stored in (validation makes it exactly one). */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return crd.spec?.versions?.find((v) => v.storage === true)?.name;
}

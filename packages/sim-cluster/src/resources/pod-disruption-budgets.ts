import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldInvalid, fieldNotSupported, type FieldError, type ResourceDefinition } from "@kubekit/generic-controlplane/registry";
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { validateLabelSelector, type LabelSelector } from "../selector.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateIntOrPercent } from "./int-or-percent.js";
import { componentSchema } from "./openapi/component-schema.js";

export const PDBS: ResourceRef = { group: "policy", version: "v1", resource: "poddisruptionbudgets", namespaced: true };

export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    selector?: LabelSelector;
    unhealthyPodEvictionPolicy?: string;
    [field: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    disruptedPods?: Record<string, string>;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
    conditions?: Array<{
      type: string;
      status: string;
      reason?: string;
      message?: string;
      observedGeneration?: number;
      lastTransitionTime?: string;
    }>;
    [field: string]: unknown;
  };
}

/** `unhealthyPodEvictionPolicy` values (policy/v1). */
export const IF_HEALTHY_BUDGET = "IfHealthyBudget";
export const ALWAYS_ALLOW = "AlwaysAllow";
const EVICTION_POLICIES = [ALWAYS_ALLOW, IF_HEALTHY_BUDGET];

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(pdb: PodDisruptionBudget): FieldError[] {
  const spec = pdb.spec ?? {};
  const errors: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errors.push(fieldInvalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  errors.push(...validateIntOrPercent(spec.minAvailable, "spec.minAvailable"));
  errors.push(...validateIntOrPercent(spec.maxUnavailable, "spec.maxUnavailable"));
  errors.push(...validateLabelSelector(spec.selector, "spec.selector"));
  if (spec.unhealthyPodEvictionPolicy !== undefined && !EVICTION_POLICIES.includes(spec.unhealthyPodEvictionPolicy)) {
    errors.push(fieldNotSupported("spec.unhealthyPodEvictionPolicy", spec.unhealthyPodEvictionPolicy, EVICTION_POLICIES));
  }
  return errors;
}

/** ValidatePodDisruptionBudgetStatusUpdate: the counts are never negative. */
export function validatePodDisruptionBudgetStatus(pdb: PodDisruptionBudget): FieldError[] {
  const status = pdb.status ?? {};
  const errors: FieldError[] = [];
  for (const name of ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"] as const) {
    const value = status[name];
    if (typeof value === "number" && value < 0) errors.push(fieldInvalid(`status.${name}`, value, "must be greater than or equal to 0"));
  }
  return errors;
}

const intOrPercentCell = (value: number | string | undefined): string => (value === undefined ? "N/A" : String(value));

const schema = componentSchema("io.k8s.api.policy.v1.PodDisruptionBudget");

/** policy/v1 PodDisruptionBudget (with /status); the spec is mutable, as upstream since 1.15. */
export const podDisruptionBudgetsResource: ResourceDefinition = defineResource<PodDisruptionBudget>({
  group: "policy",
  version: "v1",
  kind: "PodDisruptionBudget",
  plural: "poddisruptionbudgets",
  singular: "poddisruptionbudget",
  scope: "Namespaced",
  shortNames: ["pdb"],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  printerColumns: [
    {
      name: "Min Available",
      type: "string",
      description:
        'An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction.',
      cell: (p) => intOrPercentCell(p.spec?.minAvailable),
    },
    {
      name: "Max Unavailable",
      type: "string",
      description: 'An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction.',
      cell: (p) => intOrPercentCell(p.spec?.maxUnavailable),
    },
    {
      name: "Allowed Disruptions",
      type: "integer",
      description: "Number of pod disruptions that are currently allowed.",
      cell: (p) => p.status?.disruptionsAllowed ?? 0,
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: (pdb) => {
      // A new budget allows nothing until the disruption controller has looked at it.
      pdb.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    validate: validatePodDisruptionBudget,
    validateUpdate: (pdb) => [...validatePodDisruptionBudget(pdb), ...validatePodDisruptionBudgetStatus(pdb)],
  },
});

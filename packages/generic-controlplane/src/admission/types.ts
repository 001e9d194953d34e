import type { KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";

/** What admission sees of a request; the seam for NamespaceLifecycle and, later, webhooks. */
export interface AdmissionAttributes {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  definition: ResourceDefinition;
  namespace: string | undefined;
  name: string;
  subresource: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  dryRun: boolean;
}

/** Admission plugins run in order; mutating ones may change `attributes.object`, any may throw a ControlPlaneError. */
export interface AdmissionPlugin {
  name: string;
  admit?(attributes: AdmissionAttributes): Promise<void> | void;
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
}

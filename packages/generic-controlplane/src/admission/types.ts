import type { KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

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
  /** The request's CreateOptions, UpdateOptions or DeleteOptions (`meta.k8s.io/v1`), as AdmissionReview sends them. */
  options?: Record<string, unknown> | undefined;
}

/** Admission plugins run in order; mutating ones may change `attributes.object`, any may throw a ControlPlaneError. */
export interface AdmissionPlugin {
  name: string;
  admit?(attributes: AdmissionAttributes): Promise<void> | void;
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
}

const OPTIONS_KIND: Record<AdmissionAttributes["operation"], string | undefined> = {
  CREATE: "CreateOptions",
  UPDATE: "UpdateOptions",
  DELETE: "DeleteOptions",
  CONNECT: undefined,
};

/** The operation's options object from what the registry was told (dry run, field manager). */
export function operationOptions(
  operation: AdmissionAttributes["operation"],
  request: { dryRun?: boolean; fieldManager?: string },
): Record<string, unknown> | undefined {
  const kind = OPTIONS_KIND[operation];
  if (kind === undefined) return undefined;
  const options: Record<string, unknown> = { kind, apiVersion: "meta.k8s.io/v1" };
  if (request.dryRun === true) options.dryRun = ["All"];
  if (request.fieldManager !== undefined && operation !== "DELETE") options.fieldManager = request.fieldManager;
  return options;
}

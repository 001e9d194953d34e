import type { KubeObject } from "../api/types.js";

export interface APIServiceCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** apiregistration.k8s.io/v1 APIService: who serves `/apis/<group>/<version>`. */
export interface APIService extends KubeObject {
  spec?: {
    /** Unset for a local APIService (served by this server). */
    service?: { namespace?: string; name?: string; port?: number };
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    /** Base64 of the PEM CA bundle the extension server's certificate is checked against. */
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

/** `<version>.<group>`, the name every APIService must have. */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

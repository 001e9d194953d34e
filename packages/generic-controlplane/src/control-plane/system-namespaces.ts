import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceStore } from "../registry/types.js";
import { SYSTEM_NAMESPACES } from "../resources/namespaces.js";

/** upstream's `start-system-namespaces-controller` post-start hook: the system namespaces exist, whoever created them. */
export async function createSystemNamespaces(namespaces: ResourceStore): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await namespaces.create(undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    } catch (error) {
      if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
    }
  }
}

import { forbidden, notFound } from "../api/errors/index.js";
import { isControlPlaneError } from "../errors.js";
import type { KubeObject } from "../api/types.js";
import type { AdmissionAttributes, AdmissionPlugin, ResourceStore } from "../registry/types.js";
import { IMMORTAL_NAMESPACES, isNamespaceTerminating } from "../resources/namespaces.js";

const NAMESPACES = { group: "", resource: "namespaces" };

/** admission.NewForbidden: `<resource> "<name>" is forbidden: <reason>`. */
function admissionForbidden(attributes: AdmissionAttributes, name: string, reason: string) {
  return forbidden({ group: attributes.definition.group, resource: attributes.definition.plural }, name, reason);
}

/**
 * The NamespaceLifecycle admission plugin: no object may be created in a namespace that does not
 * exist (404 `namespaces "x" not found`) or is being terminated (403, cause NamespaceTerminating),
 * and `default`, `kube-system` and `kube-public` cannot be deleted. The namespace is read from the
 * store on each create (one keyed read) rather than from a cache, so a create right after a
 * namespace DELETE is refused without any window.
 */
export function namespaceLifecycle(namespaces: ResourceStore): AdmissionPlugin {
  const lookup = async (name: string): Promise<KubeObject | undefined> => {
    try {
      return await namespaces.get(undefined, name);
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "NotFound") return undefined;
      throw error;
    }
  };

  return {
    name: "NamespaceLifecycle",
    async validate(attributes) {
      const definition = attributes.definition;
      if (attributes.operation === "DELETE" && definition.group === "" && definition.plural === "namespaces") {
        if (IMMORTAL_NAMESPACES.includes(attributes.name)) throw admissionForbidden(attributes, attributes.name, "this namespace may not be deleted");
        return;
      }
      if (attributes.operation !== "CREATE" || definition.scope !== "Namespaced" || attributes.namespace === undefined) return;
      const namespace = attributes.namespace;
      const found = await lookup(namespace);
      if (found === undefined) throw notFound(NAMESPACES, namespace);
      if (isNamespaceTerminating(found)) {
        const error = admissionForbidden(attributes, attributes.name, `unable to create new content in namespace ${namespace} because it is being terminated`);
        error.details!.causes = [{ reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" }];
        throw error;
      }
    },
  };
}

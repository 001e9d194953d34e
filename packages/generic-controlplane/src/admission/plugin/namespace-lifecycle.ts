import { forbidden, notFound } from "../../api/errors/index.js";
import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import type { KubeObject } from "../../api/types.js";
import type { ResourceStore } from "../../registry/types.js";
import { StoreCache } from "./store-cache.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.js";
import { IMMORTAL_NAMESPACES, isNamespaceTerminating } from "../../resources/namespaces.js";

const NAMESPACES = { group: "", resource: "namespaces" };

/** admission.NewForbidden: `<resource> "<name>" is forbidden: <reason>`. */
function admissionForbidden(attributes: AdmissionAttributes, name: string, reason: string) {
  return forbidden({ group: attributes.definition.group, resource: attributes.definition.plural }, name, reason);
}

/**
 * How long a namespace this server was asked to delete is read from storage rather than from the
 * cache (upstream's `forceLiveLookupTTL`): the cache may not have seen it become Terminating yet.
 */
const FORCE_LIVE_LOOKUP_MS = 30_000;

/**
 * The NamespaceLifecycle admission plugin: no object may be created in a namespace that does not
 * exist (404 `namespaces "x" not found`) or is being terminated (403, cause NamespaceTerminating),
 * and `default`, `kube-system` and `kube-public` cannot be deleted. Namespaces are read from a
 * watch-fed cache, as upstream reads its informer, so a create costs no storage read; a namespace
 * the cache does not hold (created a moment ago) and one deleted through this server in the last
 * 30 s are read from the store, so a create right after a DELETE is refused without a window.
 */
export function namespaceLifecycle(namespaces: ResourceStore): AdmissionPlugin & { stop(): void } {
  const cache = new StoreCache(namespaces);
  const deletedAt = new Map<string, number>();
  const live = async (name: string): Promise<KubeObject | undefined> => {
    try {
      return await namespaces.get(undefined, name);
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "NotFound") return undefined;
      throw error;
    }
  };
  const lookup = async (name: string): Promise<KubeObject | undefined> => {
    const deleted = deletedAt.get(name);
    if (deleted !== undefined) {
      if (Date.now() - deleted < FORCE_LIVE_LOOKUP_MS) return live(name);
      deletedAt.delete(name);
    }
    return (await cache.get("", name)) ?? live(name);
  };

  const admitInto = (attributes: AdmissionAttributes, namespace: string, found: KubeObject | undefined): void => {
    if (found === undefined) throw notFound(NAMESPACES, namespace);
    if (isNamespaceTerminating(found)) {
      const error = admissionForbidden(
        attributes,
        attributes.name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      error.details!.causes = [
        { reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" },
      ];
      throw error;
    }
  };

  return {
    name: "NamespaceLifecycle",
    stop: () => cache.stop(),
    validate(attributes) {
      const definition = attributes.definition;
      if (attributes.operation === "DELETE" && definition.group === "" && definition.plural === "namespaces") {
        if (IMMORTAL_NAMESPACES.includes(attributes.name))
          throw admissionForbidden(attributes, attributes.name, "this namespace may not be deleted");
        deletedAt.set(attributes.name, Date.now());
        return;
      }
      if (attributes.operation !== "CREATE" || definition.scope !== "Namespaced" || attributes.namespace === undefined) return;
      const namespace = attributes.namespace;
      // A namespace the cache holds, not deleted here lately, is checked at once, with no promise to wait for.
      const held = deletedAt.has(namespace) ? undefined : cache.peek("", namespace);
      if (held !== undefined) return admitInto(attributes, namespace, held);
      return lookup(namespace).then((found) => admitInto(attributes, namespace, found));
    },
  };
}

import type { KubeObject } from "../../../api/types.js";
import { apiVersionOf } from "../../../registry/rest/object-utils.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import { cloneJson } from "../../../patch/json-value.js";

/**
 * Upstream's `EquivalentResourceMapper` for matchPolicy Equivalent: the other group/versions that
 * serve the same stored objects as a request's resource, and how an object is carried between
 * their forms.
 */
export interface EquivalentResources {
  /** Served resources storing the same objects as `definition` (itself excluded). */
  equivalentsOf(definition: ResourceDefinition): ResourceDefinition[];
  /** `object` in `from`'s form → the same object in `to`'s form (asynchronously when `to` has a `versionConverter`). */
  convert(object: KubeObject, from: ResourceDefinition, to: ResourceDefinition): KubeObject | Promise<KubeObject>;
}

const storageKey = (d: ResourceDefinition) => (d.storedAs ? `${d.storedAs.group}/${d.storedAs.plural}` : `${d.group}/${d.plural}`);

/**
 * Equivalence by storage, as kube-apiserver keys it: definitions kept under the same storage
 * resource (e.g. core/v1 and events.k8s.io/v1 Events) are one resource in two forms; objects
 * convert through the stored form.
 */
export function storageEquivalents(served: () => readonly ResourceDefinition[]): EquivalentResources {
  return {
    equivalentsOf(definition) {
      const key = storageKey(definition);
      return served().filter(
        (d) =>
          d !== definition &&
          storageKey(d) === key &&
          !(d.group === definition.group && d.version === definition.version && d.plural === definition.plural),
      );
    },
    convert(object, from, to) {
      if (from === to) return object;
      // A CRD's conversion webhook, as upstream's admission converts through the CRD's converter.
      if (to.versionConverter !== undefined)
        return to.versionConverter.convert([cloneJson(object)], apiVersionOf(to)).then(([converted]) => converted!);
      const stored = from.storedAs ? from.storedAs.toStorage(object) : object;
      return to.storedAs ? to.storedAs.fromStorage(stored) : stored;
    },
  };
}

import { isDeepStrictEqual } from "node:util";
import { forbidden } from "@kubekit/generic-controlplane";
import type { AdmissionAttributes, AdmissionPlugin, ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { Pod } from "./resources/pods.js";
import type { RuntimeClass } from "./resources/runtime-classes.js";
import type { Toleration } from "./scheduler/taint-toleration.js";

const isPodCreate = (attributes: AdmissionAttributes) =>
  attributes.operation === "CREATE" &&
  attributes.definition.group === "" &&
  attributes.definition.plural === "pods" &&
  attributes.subresource === "";
const rejected = (attributes: AdmissionAttributes, message: string) => forbidden({ group: "", resource: "pods" }, attributes.name, message);

async function runtimeClassOf(attributes: AdmissionAttributes, store: ResourceStore, name: string): Promise<RuntimeClass> {
  try {
    return await store.get(undefined, name);
  } catch {
    throw rejected(attributes, `pod rejected: RuntimeClass "${name}" not found`);
  }
}

/**
 * The RuntimeClass admission plugin: a new pod naming a RuntimeClass gets the class's
 * `overhead.podFixed` as `spec.overhead` (a different overhead already set is refused), the
 * class's node selector merged into its own (a conflicting value is refused) and the class's
 * tolerations added; a pod with an overhead and no class defining one is refused.
 */
export function runtimeClassAdmission(runtimeClasses: () => ResourceStore | undefined): AdmissionPlugin {
  return {
    name: "RuntimeClass",
    async admit(attributes) {
      const pod = attributes.object as Pod | undefined;
      const store = runtimeClasses();
      const name = pod?.spec?.runtimeClassName;
      if (!isPodCreate(attributes) || pod?.spec === undefined || store === undefined || !name) return;
      const runtimeClass = await runtimeClassOf(attributes, store, name);
      const podFixed = runtimeClass.overhead?.podFixed;
      if (podFixed !== undefined) {
        if (pod.spec.overhead !== undefined && !isDeepStrictEqual(pod.spec.overhead, podFixed))
          throw rejected(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        pod.spec.overhead = { ...podFixed };
      }
      const scheduling = runtimeClass.scheduling;
      if (scheduling === undefined) return;
      // Keys are the client's: a Map, not an object they could index.
      const nodeSelector = new Map(Object.entries(pod.spec.nodeSelector ?? {}));
      for (const [key, value] of Object.entries(scheduling.nodeSelector ?? {})) {
        const podValue = nodeSelector.get(key);
        if (podValue !== undefined && podValue !== value) {
          throw rejected(
            attributes,
            `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`,
          );
        }
        nodeSelector.set(key, value);
      }
      if (nodeSelector.size > 0) pod.spec.nodeSelector = Object.fromEntries(nodeSelector);
      const tolerations = [...((pod.spec["tolerations"] as Toleration[] | undefined) ?? [])];
      for (const toleration of scheduling.tolerations ?? [])
        if (!tolerations.some((t) => isDeepStrictEqual(t, toleration))) tolerations.push(toleration);
      if (tolerations.length > 0) pod.spec["tolerations"] = tolerations;
    },
    async validate(attributes) {
      const pod = attributes.object as Pod | undefined;
      const store = runtimeClasses();
      if (!isPodCreate(attributes) || pod?.spec?.overhead === undefined || store === undefined) return;
      const name = pod.spec.runtimeClassName;
      if (!name) throw rejected(attributes, "pod rejected: Pod Overhead set without corresponding RuntimeClass");
      const runtimeClass = await runtimeClassOf(attributes, store, name);
      if (runtimeClass.overhead === undefined)
        throw rejected(attributes, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
      if (!isDeepStrictEqual(pod.spec.overhead, runtimeClass.overhead.podFixed))
        throw rejected(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    },
  };
}

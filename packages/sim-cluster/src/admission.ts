import { forbidden } from "@kubekit/generic-controlplane";
import type { AdmissionPlugin, ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { Pod } from "./resources/pods.js";
import type { PriorityClass } from "./resources/priority-classes.js";

/**
 * The Priority admission plugin: a new pod's `spec.priority` comes from its
 * `priorityClassName`, else from the global default class, else 0; a class that does not exist
 * refuses the pod (403, as upstream).
 */
export function priorityAdmission(priorityClasses: () => ResourceStore | undefined): AdmissionPlugin {
  return {
    name: "Priority",
    async admit(attributes) {
      if (
        attributes.operation !== "CREATE" ||
        attributes.definition.group !== "" ||
        attributes.definition.plural !== "pods" ||
        attributes.subresource !== ""
      )
        return;
      const pod = attributes.object as Pod | undefined;
      const store = priorityClasses();
      if (pod === undefined || store === undefined) return;
      pod.spec ??= {};
      const name = pod.spec.priorityClassName;
      if (name) {
        let pc: PriorityClass;
        try {
          pc = await store.get(undefined, name);
        } catch {
          throw forbidden({ group: "", resource: "pods" }, attributes.name, `no PriorityClass with name ${name} was found`);
        }
        pod.spec.priority = pc.value ?? 0;
        if (pc.preemptionPolicy !== undefined) pod.spec["preemptionPolicy"] = pc.preemptionPolicy;
        return;
      }
      const classes = (await store.list(undefined)).items as PriorityClass[];
      const globalDefault = classes.filter((c) => c.globalDefault === true).sort((a, b) => (a.value ?? 0) - (b.value ?? 0))[0];
      if (globalDefault !== undefined) {
        pod.spec.priorityClassName = globalDefault.metadata?.name ?? "";
        pod.spec.priority = globalDefault.value ?? 0;
      } else pod.spec.priority = 0;
    },
  };
}

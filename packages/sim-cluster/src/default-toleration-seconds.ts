import type { AdmissionPlugin } from "@kubekit/generic-controlplane/registry";
import type { Pod } from "./resources/pods.js";
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, type Toleration } from "./scheduler/taint-toleration.js";

/**
 * The DefaultTolerationSeconds admission plugin: a new pod that does not tolerate the
 * `node.kubernetes.io/not-ready` or `unreachable` NoExecute taint gets a toleration of it for
 * `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds` (300 s
 * each), so the taint eviction controller lets it ride out that long a node outage.
 */
export function defaultTolerationSecondsAdmission(seconds: { notReady: number; unreachable: number }): AdmissionPlugin {
  return {
    name: "DefaultTolerationSeconds",
    admit(attributes) {
      if (
        attributes.operation !== "CREATE" ||
        attributes.definition.group !== "" ||
        attributes.definition.plural !== "pods" ||
        attributes.subresource !== ""
      )
        return;
      const pod = attributes.object as Pod | undefined;
      if (pod === undefined) return;
      pod.spec ??= {};
      const tolerations = (pod.spec["tolerations"] as Toleration[] | undefined) ?? [];
      const covers = (key: string) => tolerations.some((t) => (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
      const added: Toleration[] = [];
      if (!covers(TAINT_NODE_NOT_READY))
        added.push({ key: TAINT_NODE_NOT_READY, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds.notReady });
      if (!covers(TAINT_NODE_UNREACHABLE))
        added.push({ key: TAINT_NODE_UNREACHABLE, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds.unreachable });
      if (added.length > 0) pod.spec["tolerations"] = [...tolerations, ...added];
    },
  };
}

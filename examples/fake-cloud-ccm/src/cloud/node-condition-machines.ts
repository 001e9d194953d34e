import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { NODES } from "../ccm/objects.js";
import type { Machines } from "./instances.js";

/**
 * Machines for a sim-cluster that cannot stop its simulated kubelets: a stopped machine's Node
 * gets what kube-controller-manager's node lifecycle controller writes once the kubelet stops
 * posting status (Ready `Unknown`, `NodeStatusUnknown`); a started one is Ready again, as its
 * kubelet would report. The Node object and its name stay, as on a real power cycle.
 */
export function nodeConditionMachines(client: KubeClient): Machines {
  const setReady = (name: string, status: "True" | "Unknown") => {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const ready =
      status === "True"
        ? { type: "Ready", status, reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: now, lastTransitionTime: now }
        : { type: "Ready", status, reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastHeartbeatTime: now, lastTransitionTime: now };
    return client.patch(NODES, undefined, name, { status: { conditions: [ready] } }, undefined, "status").then(() => undefined);
  };
  return { stop: (name) => setReady(name, "Unknown"), start: (name) => setReady(name, "True") };
}

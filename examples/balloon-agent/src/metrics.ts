import { RESIZABLE_RESOURCES, type NodeBalloonStatus, type Quantity, type ResourceList } from "@kubekit/balloon";
import { Counter, Gauge, type Registry } from "prom-client";

/** Node labels the node gauges carry by default: what autoscalers group nodes by. */
export const DEFAULT_METRIC_NODE_LABELS: readonly string[] = ["topology.kubernetes.io/zone", "node.kubernetes.io/instance-type"];

/** A Node label as a Prometheus label name, as kube-state-metrics writes them (`label_topology_kubernetes_io_zone`). */
export function metricLabelName(nodeLabel: string): string {
  return `label_${nodeLabel.replace(/[^a-zA-Z0-9_]/g, "_")}`;
}

/** A quantity as Prometheus counts it: CPU in cores (from whole millicores), everything else in units (bytes). */
function metricValue(resource: string, quantity: Quantity): number {
  return resource === "cpu" ? Number(quantity.milliValue()) / 1000 : Number(quantity.value());
}

/**
 * The agent's view of every node, per resource: the real size (capacity and allocatable, what the
 * kubelet reports), the effective size (allocatable minus the balloon pod as allocated: what pods can
 * use) and the target; and how resizes ended. The node gauges carry the chosen Node labels (left
 * out when a node has none), so a query can group effective sizes by zone or node group.
 */
export class AgentMetrics {
  readonly #capacity: Gauge;
  readonly #allocatable: Gauge;
  readonly #effective: Gauge;
  readonly #target: Gauge;
  readonly #balloon: Gauge;
  readonly resizes: Counter;
  /** Node label → metric label name. */
  readonly #nodeLabels: ReadonlyMap<string, string>;
  /** The label values each node's series were recorded with, to remove exactly those. */
  readonly #recorded = new Map<string, Record<string, string>>();

  constructor(registry: Registry, nodeLabels: readonly string[] = DEFAULT_METRIC_NODE_LABELS) {
    this.#nodeLabels = new Map(nodeLabels.map((label) => [label, metricLabelName(label)]));
    const names = new Set(this.#nodeLabels.values());
    if (names.size !== this.#nodeLabels.size) throw new Error(`node labels ${nodeLabels.join(", ")} map to the same metric label`);
    const labelNames = ["node", "resource", ...names];
    const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers: [registry] });
    this.#capacity = gauge("balloon_node_capacity", "The node's status.capacity (the real machine), in cores or bytes.");
    this.#allocatable = gauge("balloon_node_allocatable", "The node's status.allocatable, in cores or bytes.");
    this.#effective = gauge(
      "balloon_node_effective",
      "Allocatable minus the balloon pod as the kubelet holds it: what pods can request, in cores or bytes.",
    );
    this.#target = gauge(
      "balloon_node_target",
      "The effective size asked by the node's balloon.kubekit.dev/target annotation, in cores or bytes.",
    );
    this.#balloon = gauge("balloon_node_balloon_allocated", "The balloon container's allocated requests, in cores or bytes.");
    this.resizes = new Counter({
      name: "balloon_resizes_total",
      help: "Balloon resizes the agent attempted, by outcome (applied, deferred, infeasible, refused, timeout).",
      labelNames: ["outcome"],
      registers: [registry],
    });
  }

  /** Records one node's sizes, replacing what was recorded for it before. */
  observe(status: NodeBalloonStatus, target: ResourceList | undefined): void {
    this.forget(status.node);
    // A label the node does not have is left out, which Prometheus reads as empty.
    const labels: Record<string, string> = {};
    for (const [nodeLabel, name] of this.#nodeLabels)
      if (Object.hasOwn(status.labels, nodeLabel)) labels[name] = status.labels[nodeLabel] ?? "";
    this.#recorded.set(status.node, labels);
    const set = (gauge: Gauge, list: ResourceList) => {
      for (const [resource, quantity] of Object.entries(list))
        gauge.set({ node: status.node, resource, ...labels }, metricValue(resource, quantity));
    };
    set(this.#capacity, status.capacity);
    set(this.#allocatable, status.allocatable);
    set(this.#effective, status.effective);
    set(this.#balloon, status.allocated);
    if (target) set(this.#target, target);
  }

  /** Drops a node's series (the node is gone, or its labels changed). */
  forget(node: string): void {
    const labels = this.#recorded.get(node);
    if (labels === undefined) return;
    this.#recorded.delete(node);
    for (const gauge of [this.#capacity, this.#allocatable, this.#effective, this.#target, this.#balloon]) {
      for (const resource of RESIZABLE_RESOURCES) gauge.remove({ node, resource, ...labels });
    }
  }
}

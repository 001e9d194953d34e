import { RESIZABLE_RESOURCES, type NodeBalloonStatus, type Quantity, type ResourceList } from "@kubekit/balloon";
import { Counter, Gauge, type Registry } from "prom-client";

/** A quantity as Prometheus counts it: CPU in cores (from whole millicores), everything else in units (bytes). */
function metricValue(resource: string, quantity: Quantity): number {
  return resource === "cpu" ? Number(quantity.milliValue()) / 1000 : Number(quantity.value());
}

/**
 * The agent's view of every node, per resource: the real size (capacity and allocatable, what the
 * kubelet reports), the effective size (allocatable minus the balloon pod as allocated: what pods can
 * use) and the target; and how resizes ended.
 */
export class AgentMetrics {
  readonly #capacity: Gauge;
  readonly #allocatable: Gauge;
  readonly #effective: Gauge;
  readonly #target: Gauge;
  readonly #balloon: Gauge;
  readonly resizes: Counter;

  constructor(registry: Registry) {
    const labelNames = ["node", "resource"] as const;
    const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers: [registry] });
    this.#capacity = gauge("balloon_node_capacity", "The node's status.capacity (the real machine), in cores or bytes.");
    this.#allocatable = gauge("balloon_node_allocatable", "The node's status.allocatable, in cores or bytes.");
    this.#effective = gauge("balloon_node_effective", "Allocatable minus the balloon pod as the kubelet holds it: what pods can request, in cores or bytes.");
    this.#target = gauge("balloon_node_target", "The effective size asked by the node's balloon.kubekit.dev/target annotation, in cores or bytes.");
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
    const set = (gauge: Gauge, list: ResourceList) => {
      for (const [resource, quantity] of Object.entries(list)) gauge.set({ node: status.node, resource }, metricValue(resource, quantity));
    };
    set(this.#capacity, status.capacity);
    set(this.#allocatable, status.allocatable);
    set(this.#effective, status.effective);
    set(this.#balloon, status.allocated);
    if (target) set(this.#target, target);
  }

  /** Drops a node's series (the node is gone). */
  forget(node: string): void {
    for (const gauge of [this.#capacity, this.#allocatable, this.#effective, this.#target, this.#balloon]) {
      for (const resource of RESIZABLE_RESOURCES) gauge.remove({ node, resource });
    }
  }
}

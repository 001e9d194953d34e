import type { QuotaEvaluator, QuotaUsage } from "@kubekit/generic-controlplane/registry";
import { countOf, objectCountName } from "@kubekit/generic-controlplane/registry";
import type { Service } from "../resources/services.js";

const SERVICE_COUNT = objectCountName("", "services");
const SERVICE_RESOURCES = new Set([SERVICE_COUNT, "services", "services.nodeports", "services.loadbalancers"]);

/** upstream's service usage: one service; a NodePort one its ports as node ports; a LoadBalancer one a load balancer and, unless it allocates none, node ports. */
export function serviceQuotaUsage(service: Service): QuotaUsage {
  const usage: QuotaUsage = new Map([
    ["services", countOf(1)],
    [SERVICE_COUNT, countOf(1)],
  ]);
  const ports = service.spec?.ports?.length ?? 0;
  if (service.spec?.type === "NodePort") usage.set("services.nodeports", countOf(ports));
  if (service.spec?.type === "LoadBalancer") {
    usage.set("services.loadbalancers", countOf(1));
    if (service.spec["allocateLoadBalancerNodePorts"] !== false) usage.set("services.nodeports", countOf(ports));
  }
  return usage;
}

/**
 * The service evaluator (upstream `pkg/quota/v1/evaluator/core/services.go`): `services`,
 * `count/services`, `services.nodeports` and `services.loadbalancers`; creates and updates are
 * charged, since an update can change a service's type. Services take no scope.
 */
export const serviceQuotaEvaluator: QuotaEvaluator<Service> = {
  group: "",
  resource: "services",
  matchingResources: (names) => names.filter((name) => SERVICE_RESOURCES.has(name)),
  usage: serviceQuotaUsage,
  handles: (attributes) => attributes.subresource === "" && (attributes.operation === "CREATE" || attributes.operation === "UPDATE"),
};

import type { HealthCheck, HealthEndpoint } from "../server/health.js";
import type { Storage } from "../storage/types.js";

/**
 * kube-apiserver's checks on `/healthz`, `/livez` and `/readyz`: `ping`, `log`, the storage
 * (named `etcd` like upstream's), and the post-start hook that creates the system namespaces.
 */
export function healthChecks(storage: Storage, systemNamespacesReady: () => boolean): Record<HealthEndpoint, HealthCheck[]> {
  const storageCheck: HealthCheck = {
    name: "etcd",
    check: async () => {
      if (storage.checkHealth) await storage.checkHealth();
      else await storage.currentRevision();
    },
  };
  const ping: HealthCheck = { name: "ping", check: () => undefined };
  const log: HealthCheck = { name: "log", check: () => undefined };
  const namespacesHook: HealthCheck = {
    name: "poststarthook/start-system-namespaces-controller",
    check: () => {
      if (!systemNamespacesReady()) throw new Error("not finished");
    },
  };
  return {
    healthz: [ping, log, storageCheck, namespacesHook],
    livez: [ping, log, storageCheck, namespacesHook],
    readyz: [ping, log, storageCheck, namespacesHook],
  };
}

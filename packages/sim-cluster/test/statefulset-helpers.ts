import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../src/resources/pods.js";
import type { StatefulSet } from "../src/resources/statefulsets.js";
import { PODS, STATEFUL_SETS } from "../src/refs.js";
import { eventually } from "./kubectl.js";

/** upstream's imageutils Httpd and the NewWebserverImage of the StatefulSet tests. */
export const WEBSERVER_IMAGE = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
export const NEW_WEBSERVER_IMAGE = "registry.k8s.io/e2e-test-images/httpd:2.4.39-4";

/**
 * The simulated kubelet runs no probes. Upstream's `setHTTPProbe` readiness probe becomes a
 * readiness gate of this type, whose condition `ReadinessProber` sets on each pod as the probe's
 * result would be: True, or False for pods whose probe the test broke (`breakHTTPProbe`).
 */
export const PROBE_GATE = "e2e.kubekit.dev/http-probe";

/** e2estatefulset.NewStatefulSet (test/e2e/framework/statefulset/rest.go), without volume mounts. */
export function newStatefulSet(
  name: string,
  ns: string,
  governingService: string,
  replicas: number,
  labels: Record<string, string>,
): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: { ...labels } },
      replicas,
      template: {
        metadata: { labels: { ...labels }, annotations: {} },
        spec: { containers: [{ name: "webserver", image: WEBSERVER_IMAGE }] },
      },
      updateStrategy: { type: "RollingUpdate" },
      serviceName: governingService,
    },
  };
}

/** `setHTTPProbe`. */
export function setHTTPProbe(ss: StatefulSet): void {
  ss.spec!.template!.spec!["readinessGates"] = [{ conditionType: PROBE_GATE }];
}

/** Plays the readiness probe of every pod in a namespace: its gate condition follows what the test broke. */
export class ReadinessProber {
  readonly #broken = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  #busy = false;

  constructor(
    private readonly client: KubeClient,
    private readonly ns: string,
  ) {
    this.#timer = setInterval(() => void this.#tick(), 50);
  }

  break(...names: string[]): void {
    for (const name of names) this.#broken.add(name);
  }

  restore(...names: string[]): void {
    for (const name of names) this.#broken.delete(name);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const pods = await this.client.list<Pod>(PODS, this.ns);
      for (const pod of pods.items) {
        if (pod.status?.phase !== "Running" || pod.metadata?.deletionTimestamp !== undefined) continue;
        const gated = ((pod.spec?.["readinessGates"] as Array<{ conditionType?: string }> | undefined) ?? []).some(
          (g) => g.conditionType === PROBE_GATE,
        );
        if (!gated) continue;
        const want = this.#broken.has(pod.metadata?.name ?? "") ? "False" : "True";
        const have = pod.status.conditions?.find((c) => c.type === PROBE_GATE)?.status;
        if (have === want) continue;
        const others = (pod.status.conditions ?? []).filter((c) => c.type !== PROBE_GATE);
        await this.client
          .patch(
            PODS,
            this.ns,
            pod.metadata?.name ?? "",
            {
              metadata: { resourceVersion: pod.metadata?.resourceVersion },
              status: {
                conditions: [
                  ...others,
                  { type: PROBE_GATE, status: want, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") },
                ],
              },
            },
            "application/merge-patch+json",
            "status",
          )
          .catch(() => undefined);
      }
    } catch {
      // The namespace may be going away; the next tick tries again.
    } finally {
      this.#busy = false;
    }
  }
}

export const isRunningAndReady = (pod: Pod) =>
  pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

/** e2estatefulset.GetPodList, sorted by ordinal (SortStatefulPods). */
export async function getPodList(client: KubeClient, ss: StatefulSet): Promise<Pod[]> {
  const selector = Object.entries(ss.spec?.selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const list = await client.list<Pod>(PODS, ss.metadata?.namespace, { labelSelector: selector });
  const ordinal = (pod: Pod) => Number((pod.metadata?.name ?? "").slice((ss.metadata?.name ?? "").length + 1));
  return list.items.sort((a, b) => ordinal(a) - ordinal(b));
}

export async function getStatefulSet(client: KubeClient, ss: StatefulSet): Promise<StatefulSet> {
  return client.get<StatefulSet>(STATEFUL_SETS, ss.metadata?.namespace, ss.metadata?.name ?? "");
}

/** e2estatefulset.WaitForState. */
export function waitForState(
  client: KubeClient,
  ss: StatefulSet,
  what: string,
  until: (set: StatefulSet, pods: Pod[]) => boolean,
  timeoutMs = 30_000,
): Promise<{ set: StatefulSet; pods: Pod[] }> {
  return eventually(
    what,
    async () => {
      const set = await getStatefulSet(client, ss);
      const pods = await getPodList(client, set);
      return until(set, pods) ? { set, pods } : undefined;
    },
    timeoutMs,
  );
}

/** e2estatefulset.WaitForRunningAndReady (WaitForRunning with ready = true). */
export function waitForRunningAndReady(client: KubeClient, count: number, ss: StatefulSet): Promise<{ set: StatefulSet; pods: Pod[] }> {
  return waitForState(
    client,
    ss,
    `${count} pods running and ready`,
    (_set, pods) => pods.length === count && pods.every(isRunningAndReady),
  );
}

/** `waitForRunningAndNotReady`. */
export function waitForRunningAndNotReady(client: KubeClient, count: number, ss: StatefulSet): Promise<{ set: StatefulSet; pods: Pod[] }> {
  return waitForState(
    client,
    ss,
    `${count} pods running and not ready`,
    (_set, pods) => pods.length === count && pods.every((p) => p.status?.phase === "Running" && !isRunningAndReady(p)),
  );
}

/** `waitForStatus`: the controller has seen the set's latest generation. */
export async function waitForStatus(client: KubeClient, ss: StatefulSet): Promise<StatefulSet> {
  return (
    await waitForState(
      client,
      ss,
      "status to observe the generation",
      (set) => (set.status?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 1),
    )
  ).set;
}

/** e2estatefulset.WaitForStatusReadyReplicas / WaitForStatusReplicas. */
export async function waitForStatusReadyReplicas(client: KubeClient, ss: StatefulSet, ready: number): Promise<void> {
  await waitForState(
    client,
    ss,
    `${ready} ready replicas in status`,
    (set) => (set.status?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 1) && (set.status?.readyReplicas ?? 0) === ready,
  );
}

export async function waitForStatusReplicas(client: KubeClient, ss: StatefulSet, replicas: number): Promise<void> {
  await waitForState(
    client,
    ss,
    `${replicas} replicas in status`,
    (set) => (set.status?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 1) && (set.status?.replicas ?? 0) === replicas,
  );
}

/** `updateStatefulSetWithRetries`. */
export async function updateStatefulSetWithRetries(
  client: KubeClient,
  ss: StatefulSet,
  change: (set: StatefulSet) => void,
): Promise<StatefulSet> {
  for (let attempt = 0; ; attempt++) {
    const set = await getStatefulSet(client, ss);
    change(set);
    try {
      return await client.update<StatefulSet>(STATEFUL_SETS, set.metadata?.namespace, set);
    } catch (error) {
      if (attempt > 10) throw error;
    }
  }
}

/** `waitForRollingUpdate`: every pod at the update revision, which has become the current one. */
export function waitForRollingUpdate(client: KubeClient, ss: StatefulSet): Promise<{ set: StatefulSet; pods: Pod[] }> {
  return waitForState(client, ss, "rolling update to complete", (set, pods) => {
    if ((set.status?.observedGeneration ?? 0) < (set.metadata?.generation ?? 1)) return false;
    if (set.status?.updateRevision !== set.status?.currentRevision) return false;
    return (
      pods.length === (set.spec?.replicas ?? 0) &&
      pods.every((p) => p.metadata?.labels?.["controller-revision-hash"] === set.status?.updateRevision)
    );
  });
}

/** `waitForPartitionedRollingUpdate`: the pods at or above the partition are at the update revision. */
export function waitForPartitionedRollingUpdate(client: KubeClient, ss: StatefulSet): Promise<{ set: StatefulSet; pods: Pod[] }> {
  return waitForState(client, ss, "partitioned rolling update", (set, pods) => {
    if ((set.status?.observedGeneration ?? 0) < (set.metadata?.generation ?? 1)) return false;
    const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    if (pods.length !== (set.spec?.replicas ?? 0)) return false;
    return pods.every(
      (p, i) => i < partition || (p.metadata?.labels?.["controller-revision-hash"] === set.status?.updateRevision && isRunningAndReady(p)),
    );
  });
}

/** `waitForPodNotReady` / e2estatefulset.WaitForPodReady. */
export async function waitForPodReadiness(client: KubeClient, ss: StatefulSet, name: string, ready: boolean): Promise<StatefulSet> {
  return (
    await waitForState(client, ss, `pod ${name} ${ready ? "ready" : "not ready"}`, (_set, pods) =>
      pods.some((p) => p.metadata?.name === name && isRunningAndReady(p) === ready),
    )
  ).set;
}

/** `confirmStatefulPodCount` (hard): the set keeps exactly `count` pods for `ms`. */
export async function confirmStatefulPodCount(
  client: KubeClient,
  count: number,
  ss: StatefulSet,
  ms: number,
  hard: boolean,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const pods = await getPodList(client, ss);
    if (pods.length !== count && hard)
      throw new Error(`StatefulSet ${ss.metadata?.name ?? ""} scaled unexpectedly scaled to ${count} -> ${pods.length} replicas`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `deleteStatefulPodAtIndex`. */
export async function deleteStatefulPodAtIndex(client: KubeClient, index: number, ss: StatefulSet): Promise<void> {
  await client.delete(PODS, ss.metadata?.namespace, `${ss.metadata?.name ?? ""}-${index}`, { gracePeriodSeconds: 0 });
}

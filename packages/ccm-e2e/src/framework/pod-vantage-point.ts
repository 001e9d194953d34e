import { randomBytes } from "node:crypto";
import { isApiError, isNotFound, type KubeClient } from "@kubekit/client";
import type { ProbeOptions, ProbeResponse, TrafficClient } from "../driver/types.js";
import { AGNHOST_IMAGE } from "./jig.js";
import { poll } from "./poll.js";
import { NAMESPACES, PODS, type Pod } from "./resources.js";

/** netexec's ports in the dialer pods (its defaults, as upstream's test container uses them). */
const DIALER_HTTP_PORT = 8080;
const DIALER_UDP_PORT = 8081;

/** The API server's hop to the pod and back, on top of the probe's own timeout. */
const PROXY_SLACK_MS = 5000;

/** netexec's `/dial` answer (`NetexecDialResponse` upstream). */
interface DialAnswer {
  responses?: string[];
  errors?: string[];
}

export interface PodVantagePointOptions {
  /** How long a dialer pod may take to become Ready (`PodStartTimeout`). */
  podStartTimeoutMs: number;
  /** How long `close` waits for the dialers' namespace to go. */
  namespaceDeleteTimeoutMs: number;
}

/** The in-cluster vantage point every cluster has; `close` deletes its pods and namespace. */
export interface PodVantagePoint extends TrafficClient {
  close(): Promise<void>;
}

type Dialer = { name: string; node: string | undefined };

function isRunningAndReady(pod: Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    (pod.status.podIP ?? "") !== "" &&
    (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

/**
 * The in-cluster vantage point when the driver gives none, as upstream reaches ClusterIPs without
 * SSH: an agnhost `netexec` pod (upstream's test container) asked through the API server's
 * `pods/proxy` to `/dial` the target, so the request leaves from inside the cluster network. For
 * `fromNode`, the dialer is a host-network pod pinned to that node, so the target sees the node's
 * own address. Pods are made on first use in one namespace for the run, recreated when gone (a
 * rebooted or deleted node takes its pods with it).
 *
 * `/dial` returns the target's body, not its status: an answer counts as status 200, no answer
 * (refused, timed out, no UDP reply) is thrown with netexec's error. UDP probes cannot fix the
 * client's source port.
 */
export function podVantagePoint(client: KubeClient, options: PodVantagePointOptions): PodVantagePoint {
  const namespace = `ccm-e2e-dialers-${randomBytes(3).toString("hex")}`;
  let namespaceReady: Promise<void> | undefined;
  const dialers = new Map<string, Promise<Dialer>>();
  const hostDialerNames = new Map<string, string>();

  const ensureNamespace = () =>
    (namespaceReady ??= client
      .create(NAMESPACES, undefined, {
        apiVersion: "v1",
        kind: "Namespace",
        // Host-network pods need the privileged Pod Security level, as upstream's privileged namespaces.
        metadata: {
          name: namespace,
          labels: { "e2e-run": "ccm-e2e", "e2e-framework": "ccm-e2e", "pod-security.kubernetes.io/enforce": "privileged" },
        },
      })
      .then(
        () => undefined,
        (error: unknown) => {
          namespaceReady = undefined;
          throw error;
        },
      ));

  const podFor = (node: string | undefined): Record<string, unknown> => {
    const name = node === undefined ? "dialer" : hostDialerName(node);
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels: { "ccm-e2e-dialer": "true" } },
      spec: {
        ...(node === undefined ? {} : { nodeName: node, hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" }),
        // It must run wherever a test sends from, cordoned and tainted nodes included.
        tolerations: [{ operator: "Exists" }],
        terminationGracePeriodSeconds: 0,
        containers: [
          {
            name: "agnhost-container",
            image: AGNHOST_IMAGE,
            args: ["netexec", `--http-port=${DIALER_HTTP_PORT}`, `--udp-port=${DIALER_UDP_PORT}`],
            ports: [
              { containerPort: DIALER_HTTP_PORT, protocol: "TCP" },
              { containerPort: DIALER_UDP_PORT, protocol: "UDP" },
            ],
            // Small requests of its own: a container without any is scored as 100m and 200 MB,
            // which would steer the tests' own pods away from the nodes the dialers run on.
            resources: { requests: { cpu: "1m", memory: "16Mi" } },
          },
        ],
      },
    };
  };

  const hostDialerName = (node: string): string => {
    let name = hostDialerNames.get(node);
    if (name === undefined) {
      name = `dialer-host-${hostDialerNames.size}`;
      hostDialerNames.set(node, name);
    }
    return name;
  };

  const start = async (node: string | undefined): Promise<Dialer> => {
    await ensureNamespace();
    const manifest = podFor(node);
    const name = (manifest["metadata"] as { name: string }).name;
    let pod: Pod | undefined;
    try {
      pod = await client.get<Pod>(PODS, namespace, name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const finished = pod?.status?.phase === "Succeeded" || pod?.status?.phase === "Failed";
    if (pod !== undefined && (finished || pod.metadata.deletionTimestamp !== undefined)) {
      await client
        .delete(PODS, namespace, name, { gracePeriodSeconds: 0 })
        .catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error as Error)));
      await poll(`the finished dialer pod ${name} to go`, { timeoutMs: options.podStartTimeoutMs }, async () => {
        try {
          await client.get(PODS, namespace, name);
          return undefined;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      });
      pod = undefined;
    }
    if (pod === undefined) await client.create(PODS, namespace, manifest);
    await poll(
      `the dialer pod ${namespace}/${name}${node === undefined ? "" : ` on node ${node}`} to be running and ready`,
      { timeoutMs: options.podStartTimeoutMs },
      async (note) => {
        const current = await client.get<Pod>(PODS, namespace, name);
        if (isRunningAndReady(current)) return true;
        note(`phase ${current.status?.phase ?? "unknown"}`);
        return undefined;
      },
    );
    return { name, node };
  };

  const dialer = (node: string | undefined): Promise<Dialer> => {
    const key = node ?? "";
    let ready = dialers.get(key);
    if (ready === undefined) {
      ready = start(node);
      dialers.set(key, ready);
      // A failed start is tried again by the next probe.
      ready.catch(() => dialers.delete(key));
    }
    return ready;
  };

  const dial = async (protocol: "http" | "udp", host: string, port: number, request: string, probe: ProbeOptions): Promise<string> => {
    const from = await dialer(probe.fromNode);
    let answer: unknown;
    try {
      answer = await client.request("GET", `/api/v1/namespaces/${namespace}/pods/${from.name}:${DIALER_HTTP_PORT}/proxy/dial`, {
        query: { request, protocol, host, port, tries: 1 },
        signal: AbortSignal.timeout(probe.timeoutMs + PROXY_SLACK_MS),
      });
    } catch (error) {
      // The pod may be gone (its node rebooted or deleted): the next probe checks it again.
      if (isApiError(error)) dialers.delete(probe.fromNode ?? "");
      throw error;
    }
    const result = (answer ?? {}) as DialAnswer;
    const response = result.responses?.[0];
    if (response !== undefined && response !== "") return response;
    throw new Error(result.errors?.[0] ?? `no answer from ${host}:${port} through the dialer pod ${from.name}`);
  };

  return {
    async httpGet(host: string, port: number, path: string, probe: ProbeOptions): Promise<ProbeResponse> {
      return { status: 200, body: await dial("http", host, port, path.replace(/^\//, ""), probe) };
    },
    async udpExchange(host: string, port: number, payload: string, probe: ProbeOptions & { srcPort?: number }): Promise<string> {
      if (probe.srcPort !== undefined) throw new Error("the dialer pod cannot send from a fixed UDP source port");
      return dial("udp", host, port, payload, probe);
    },
    async close(): Promise<void> {
      if (namespaceReady === undefined) return;
      try {
        await namespaceReady;
      } catch {
        return;
      }
      try {
        await client.delete(NAMESPACES, undefined, namespace);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      await poll(`namespace ${namespace} to be deleted`, { timeoutMs: options.namespaceDeleteTimeoutMs }, async () => {
        try {
          await client.get(NAMESPACES, undefined, namespace);
          return undefined;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      });
    },
  };
}

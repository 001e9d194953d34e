import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Container } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";
import { containerExit, containerOutput } from "./container-exit.js";

function exitOf(container: Container, annotations: Record<string, string> = {}, run = 0) {
  return containerExit({ metadata: { annotations } }, { name: "c1", image: "x", ...container }, run);
}

describe("the simulated container exit rule", () => {
  it("reads sleep, true, false and exit from the command and args", () => {
    expect(exitOf({ command: ["sleep", "2"] })).toEqual({ afterMs: 2000, exitCode: 0 });
    expect(exitOf({ command: ["sleep"], args: ["1.5m"] })).toEqual({ afterMs: 90_000, exitCode: 0 });
    expect(exitOf({ command: ["/bin/false"] })).toEqual({ afterMs: 0, exitCode: 1 });
    expect(exitOf({ command: ["true"] })).toEqual({ afterMs: 0, exitCode: 0 });
    expect(exitOf({ command: ["/bin/sh", "-c", "exit 3"] })).toEqual({ afterMs: 0, exitCode: 3 });
    expect(exitOf({ command: ["sh"], args: ["-c", "sleep 1; exit 42"] })).toEqual({ afterMs: 1000, exitCode: 42 });
    expect(exitOf({ command: ["bash", "-c", "sleep 1 && false || exit 7"] })).toEqual({ afterMs: 1000, exitCode: 7 });
    expect(exitOf({ command: ["sh", "-c", "false && sleep 5"] })).toEqual({ afterMs: 0, exitCode: 1 });
    expect(exitOf({ command: ["sh", "-c", "sleep 1\nfalse"] })).toEqual({ afterMs: 1000, exitCode: 1 });
  });

  it("reads echo: it succeeds and prints its words, unless the shell would expand or redirect them", () => {
    expect(exitOf({ command: ["sh", "-c", "echo hi; sleep 1"] })).toEqual({ afterMs: 1000, exitCode: 0 });
    expect(containerOutput({ name: "c", image: "x", command: ["sh", "-c", "echo hi; echo 'a  b' \"c\"; exit 2"] })).toEqual([
      "hi",
      "a  b c",
    ]);
    expect(containerOutput({ name: "c", image: "x", command: ["echo", "hello world"] })).toEqual(["hello world"]);
    expect(containerOutput({ name: "c", image: "x", command: ["sh", "-c", "false && echo skipped || echo ran"] })).toEqual(["ran"]);
    expect(exitOf({ command: ["sh", "-c", "echo $HOME"] })).toBeUndefined();
    expect(exitOf({ command: ["sh", "-c", "echo hi > /tmp/x"] })).toBeUndefined();
    expect(containerOutput({ name: "c", image: "x", command: ["sh", "-c", "echo hi; touch /x"] })).toEqual([]);
  });

  it("runs until stopped when it cannot tell: no command, servers, sleep infinity, other scripts", () => {
    expect(exitOf({})).toBeUndefined();
    expect(exitOf({ args: ["netexec", "--http-port=8080"] })).toBeUndefined();
    expect(exitOf({ command: ["sleep", "infinity"] })).toBeUndefined();
    expect(exitOf({ command: ["sh", "-c", "exit $(( $RANDOM / 16384 ))"] })).toBeUndefined();
    expect(exitOf({ command: ["sh", "-c", "touch /data/foo; exit 1"] })).toBeUndefined();
    expect(exitOf({ command: ["sh", "-c", "sleep 1 & exit 1"] })).toBeUndefined();
  });

  it("takes annotations first: exit codes per run (the last repeats) and the run time, pod-wide or per container", () => {
    const annotations = { "sim.kubekit.io/exit-codes": "1,0", "sim.kubekit.io/run-seconds": "0.5" };
    expect(exitOf({ command: ["sleep", "100"] }, annotations, 0)).toEqual({ afterMs: 500, exitCode: 1 });
    expect(exitOf({}, annotations, 1)).toEqual({ afterMs: 500, exitCode: 0 });
    expect(exitOf({}, annotations, 5)).toEqual({ afterMs: 500, exitCode: 0 });
    expect(exitOf({}, { "exit-codes.sim.kubekit.io/c1": "9", "sim.kubekit.io/exit-codes": "1" })).toEqual({ afterMs: 0, exitCode: 9 });
    expect(exitOf({}, { "exit-codes.sim.kubekit.io/other": "9" })).toBeUndefined();
    expect(exitOf({}, { "run-seconds.sim.kubekit.io/c1": "2" })).toEqual({ afterMs: 2000, exitCode: 0 });
  });
});

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function podOnceEnded(c: KubeClient, name: string, phase: string): Promise<Pod> {
  return eventually(`${name} ${phase}`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    return pod.status?.phase === phase ? pod : undefined;
  });
}

describe("containers that exit, on a simulated node", { timeout: 30_000 }, () => {
  it("ends pods Succeeded or Failed by their containers' exit codes, under restartPolicy Never", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const c = client;
    await c.create(PODS, "default", {
      metadata: { name: "ok" },
      spec: { restartPolicy: "Never", containers: [{ name: "c1", image: "busybox", command: ["sh", "-c", "sleep 0.2; exit 0"] }] },
    });
    await c.create(PODS, "default", {
      metadata: { name: "bad" },
      spec: {
        restartPolicy: "Never",
        containers: [
          { name: "c1", image: "busybox", command: ["/bin/false"] },
          { name: "c2", image: "busybox", command: ["true"] },
        ],
      },
    });
    const ok = await podOnceEnded(c, "ok", "Succeeded");
    expect(ok.status?.containerStatuses?.[0]?.state?.["terminated"]).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(ok.status?.conditions?.find((x) => x.type === "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
    const bad = await podOnceEnded(c, "bad", "Failed");
    const byName = new Map((bad.status?.containerStatuses ?? []).map((s) => [s.name, s]));
    expect(byName.get("c1")?.state?.["terminated"]).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(byName.get("c2")?.state?.["terminated"]).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(byName.get("c1")?.restartCount).toBe(0);
  });

  it("restarts a failed container under OnFailure (at once the first time) until it succeeds", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    await client.create(PODS, "default", {
      metadata: { name: "flaky", annotations: { "sim.kubekit.io/exit-codes": "1,0" } },
      spec: { restartPolicy: "OnFailure", containers: [{ name: "c1", image: "busybox" }] },
    });
    const pod = await podOnceEnded(client, "flaky", "Succeeded");
    const status = pod.status?.containerStatuses?.[0];
    expect(status?.restartCount).toBe(1);
    expect(status?.lastState?.["terminated"]).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(status?.state?.["terminated"]).toMatchObject({ exitCode: 0 });
  });

  it("backs off a container that keeps failing under restartPolicy Always (CrashLoopBackOff), the pod staying Running", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const c = client;
    await c.create(PODS, "default", {
      metadata: { name: "crash" },
      spec: { containers: [{ name: "c1", image: "busybox", command: ["sh", "-c", "exit 2"] }] },
    });
    const pod = await eventually("crash in back-off", async () => {
      const p = await c.get<Pod>(PODS, "default", "crash");
      return p.status?.containerStatuses?.[0]?.state?.["waiting"] !== undefined ? p : undefined;
    });
    expect(pod.status?.phase).toBe("Running");
    const status = pod.status?.containerStatuses?.[0];
    expect(status?.restartCount).toBe(1);
    expect(status?.ready).toBe(false);
    expect(status?.state?.["waiting"]).toMatchObject({ reason: "CrashLoopBackOff" });
    expect(String((status?.state?.["waiting"] as { message?: string }).message)).toMatch(
      /^back-off 10s restarting failed container=c1 pod=crash_default\(/,
    );
    expect(status?.lastState?.["terminated"]).toMatchObject({ exitCode: 2, reason: "Error" });
    expect(pod.status?.conditions?.find((x) => x.type === "Ready")).toMatchObject({
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [c1]",
    });
  });
});

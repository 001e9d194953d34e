import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PODS } from "../refs.js";

let cluster: SimCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  client = new KubeClient({ server: cluster.url });
});

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

type Pod = KubeObject & {
  status?: { phase?: string; containerStatuses?: Array<{ restartCount: number; state?: { running?: { startedAt: string } } }> };
};

const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.53";

async function running(name: string): Promise<Pod> {
  return eventually(`${name} running`, async () => {
    const pod = await client.get<Pod>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

const logUrl = (pod: string, query = "") => `${cluster.url}/api/v1/namespaces/default/pods/${pod}/log${query === "" ? "" : `?${query}`}`;

describe("pods/log", { timeout: 30_000 }, () => {
  it("prints agnhost's startup lines, with timestamps, tailLines, limitBytes and sinceSeconds", async () => {
    await client.create(PODS, "default", {
      metadata: { name: "netexec" },
      spec: { containers: [{ name: "agnhost", image: agnhost, args: ["netexec", "--http-port=8080", "--udp-port=8081"] }] },
    });
    await client.create(PODS, "default", {
      metadata: { name: "hostnames" },
      spec: { containers: [{ name: "agnhost", image: agnhost, args: ["serve-hostname"] }] },
    });
    const pod = await running("netexec");
    await running("hostnames");

    const log = await fetch(logUrl("netexec"));
    expect(log.status).toBe(200);
    const lines = (await log.text()).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} {7}1 log\.go:195\] Started HTTP server on port 8080$/);
    expect(lines[1]).toMatch(/\] Started UDP server on port {2}8081$/);
    expect(lines[2]).toBe("");
    expect(await (await fetch(logUrl("hostnames"))).text()).toMatch(/\] Serving on port 9376\.\n$/);

    const startedAt = pod.status!.containerStatuses![0]!.state!.running!.startedAt;
    const stamped = await (await fetch(logUrl("netexec", "timestamps=true&tailLines=1"))).text();
    expect(stamped).toMatch(new RegExp(`^${startedAt.replace("Z", "")}\\.000000000Z I\\d{4} .*Started UDP server on port  8081\\n$`));
    expect(await (await fetch(logUrl("netexec", "limitBytes=5"))).text()).toBe(lines[0]!.slice(0, 5));
    expect(await (await fetch(logUrl("netexec", "tailLines=0"))).text()).toBe("");
    expect((await (await fetch(logUrl("netexec", "sinceSeconds=3600"))).text()).split("\n")).toHaveLength(3);

    const invalid = await fetch(logUrl("netexec", "tailLines=-1&limitBytes=0"));
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({
      reason: "Invalid",
      message:
        'PodLogOptions "netexec" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
    });
  });

  it("prints what a shell script's echo prints, and follow streams until the container ends", async () => {
    await client.create(PODS, "default", {
      metadata: { name: "echo" },
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "echo hi; echo 'two  words'; sleep 2"] }],
      },
    });
    await running("echo");
    const started = Date.now();
    const followed = await fetch(logUrl("echo", "follow=true"));
    expect(await followed.text()).toBe("hi\ntwo  words\n");
    // The stream stays open while the container runs (2 s), and ends when it exits.
    expect(Date.now() - started).toBeGreaterThan(500);
    const done = await eventually("echo succeeded", async () =>
      (await client.get<Pod>(PODS, "default", "echo")).status?.phase === "Succeeded" ? true : undefined,
    );
    expect(done).toBe(true);
    expect(await (await fetch(logUrl("echo"))).text()).toBe("hi\ntwo  words\n");
  });

  it("answers upstream's errors: container name required, unknown container, waiting to start, no previous run", async () => {
    await client.create(PODS, "default", {
      metadata: { name: "two" },
      spec: {
        containers: [
          { name: "a", image: agnhost, args: ["pause"] },
          { name: "b", image: agnhost, args: ["pause"] },
        ],
      },
    });
    await client.create(PODS, "default", {
      metadata: { name: "unpullable" },
      spec: { containers: [{ name: "x", image: "foo.invalid/none:latest" }] },
    });
    await running("two");
    const error = async (url: string) => {
      const response = await fetch(url);
      return { code: response.status, ...((await response.json()) as { reason: string; message: string }) };
    };
    expect(await error(logUrl("two"))).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: "a container name must be specified for pod two, choose one of: [a b]",
    });
    expect(await error(logUrl("two", "container=c"))).toMatchObject({ code: 400, message: "container c is not valid for pod two" });
    expect(await error(logUrl("two", "container=a&previous=true"))).toMatchObject({
      code: 400,
      message: 'previous terminated container "a" in pod "two" not found',
    });
    expect(await (await fetch(logUrl("two", "container=b"))).text()).toBe("");
    const waiting = await eventually("unpullable waiting", async () => {
      const answer = await error(logUrl("unpullable"));
      return answer.message.includes("image") ? answer : undefined;
    });
    expect(waiting.code).toBe(400);
    expect(waiting.message).toMatch(
      /^container "x" in pod "unpullable" is waiting to start: (image can't be pulled|trying and failing to pull image)$/,
    );
  });
});

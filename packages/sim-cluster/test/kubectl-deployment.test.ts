import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

interface RSList {
  items: Array<{
    metadata: { name: string; annotations: Record<string, string> };
    spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
  }>;
}

async function replicaSets(app: string): Promise<Record<string, number>> {
  const out = await run("get", "rs", "-l", `app=${app}`, "-o", "json");
  return Object.fromEntries(
    (JSON.parse(out.stdout) as RSList).items.map((rs) => [rs.spec.template.spec.containers[0]!.image, rs.spec.replicas]),
  );
}

async function image(name: string): Promise<string> {
  return (await run("get", "deployment", name, "-o", "jsonpath={.spec.template.spec.containers[0].image}")).stdout;
}

async function rolloutStatus(name: string): Promise<string> {
  const out = await run("rollout", "status", `deployment/${name}`, "--timeout=20s");
  expect(out.stderr).toBe("");
  return out.stdout.trim().split("\n").at(-1) ?? "";
}

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-deploy-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each case runs a dozen kubectl processes and waits on rollouts: more than the default 5 s on a loaded machine.
describe("kubectl 1.32: Deployments", { timeout: 30_000 }, () => {
  it("rollout undo goes back to the previous revision, and --to-revision to any kept one", async () => {
    expect((await run("create", "deployment", "web", "--image=v1", "--replicas=3")).code).toBe(0);
    expect(await rolloutStatus("web")).toBe('deployment "web" successfully rolled out');
    for (const [version, cause] of [
      ["v2", "to v2"],
      ["v3", "to v3"],
    ] as const) {
      expect((await run("set", "image", "deployment/web", `*=${version}`)).code).toBe(0);
      expect((await run("annotate", "deployment/web", `kubernetes.io/change-cause=${cause}`, "--overwrite")).code).toBe(0);
      expect(await rolloutStatus("web")).toBe('deployment "web" successfully rolled out');
    }
    const history = await run("rollout", "history", "deployment/web");
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+to v2\n3\s+to v3\n/);

    expect(await run("rollout", "undo", "deployment/web")).toMatchObject({ code: 0, stdout: "deployment.apps/web rolled back\n" });
    expect(await rolloutStatus("web")).toBe('deployment "web" successfully rolled out');
    expect(await image("web")).toBe("v2");
    await eventually("v2 to hold every replica", async () => {
      const sets = await replicaSets("web");
      return sets["v2"] === 3 && sets["v1"] === 0 && sets["v3"] === 0 ? true : undefined;
    });
    // The ReplicaSet that came back is revision 4; its old number is kept in revision-history.
    expect((await run("rollout", "history", "deployment/web")).stdout).toMatch(
      /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n3\s+to v3\n4\s+to v2\n/,
    );
    const rs = (JSON.parse((await run("get", "rs", "-l", "app=web", "-o", "json")).stdout) as RSList).items.find(
      (r) => r.spec.template.spec.containers[0]!.image === "v2",
    )!;
    expect(rs.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "4",
      "deployment.kubernetes.io/revision-history": "2",
    });

    expect((await run("rollout", "undo", "deployment/web", "--to-revision=1")).code).toBe(0);
    expect(await rolloutStatus("web")).toBe('deployment "web" successfully rolled out');
    expect(await image("web")).toBe("v1");
    const missing = await run("rollout", "undo", "deployment/web", "--to-revision=9");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toBe("error: unable to find specified revision 9 in history\n");
  });

  it("rollout pause holds template changes back, scaling still works, rollout resume rolls them out", async () => {
    expect((await run("create", "deployment", "held", "--image=v1", "--replicas=2")).code).toBe(0);
    expect(await rolloutStatus("held")).toBe('deployment "held" successfully rolled out');
    expect(await run("rollout", "pause", "deployment/held")).toMatchObject({ code: 0, stdout: "deployment.apps/held paused\n" });
    expect((await run("set", "image", "deployment/held", "*=v2")).code).toBe(0);
    expect((await run("scale", "deployment/held", "--replicas=4")).code).toBe(0);
    await eventually("the paused deployment to scale without rolling out", async () => {
      const sets = await replicaSets("held");
      const described = await run(
        "get",
        "deployment",
        "held",
        "-o",
        'jsonpath={.status.availableReplicas} {.status.conditions[?(@.type=="Progressing")].reason}',
      );
      return JSON.stringify(sets) === JSON.stringify({ v1: 4 }) && described.stdout === "4 DeploymentPaused" ? true : undefined;
    });
    const again = await run("rollout", "pause", "deployment/held");
    expect(again.stderr).toBe('error: deployments.apps "held" is already paused\n');

    expect(await run("rollout", "resume", "deployment/held")).toMatchObject({ code: 0, stdout: "deployment.apps/held resumed\n" });
    expect(await rolloutStatus("held")).toBe('deployment "held" successfully rolled out');
    expect(await replicaSets("held")).toEqual({ v1: 0, v2: 4 });
  });

  it("rollout status fails once a rollout exceeds its progress deadline", async () => {
    const file = join(dir, "stuck.json");
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "stuck" },
        spec: {
          replicas: 1,
          progressDeadlineSeconds: 1,
          selector: { matchLabels: { app: "stuck" } },
          template: {
            metadata: { labels: { app: "stuck" } },
            spec: { nodeSelector: { nowhere: "true" }, containers: [{ name: "c", image: "x" }] },
          },
        },
      }),
    );
    expect((await run("create", "-f", file)).code).toBe(0);
    const status = await run("rollout", "status", "deployment/stuck", "--timeout=20s");
    expect(status.code).not.toBe(0);
    expect(status.stderr).toBe('error: deployment "stuck" exceeded its progress deadline\n');
  });
});

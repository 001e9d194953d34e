import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-job-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster.close();
  await rm(dir, { recursive: true, force: true });
});

describe("kubectl 1.32 with Jobs", { timeout: 60_000 }, () => {
  it("create job, wait --for=condition=complete, get job and its pods", async () => {
    const created = await run("create", "job", "pi", "--image=busybox", "--", "sh", "-c", "sleep 0.5; exit 0");
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe("job.batch/pi created");
    const waited = await run("wait", "--for=condition=complete", "job/pi", "--timeout=30s");
    expect(waited.stderr).toBe("");
    expect(waited.stdout.trim()).toBe("job.batch/pi condition met");
    const table = await run("get", "job", "pi");
    expect(table.stdout).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\n/);
    expect(table.stdout).toMatch(/\npi\s+Complete\s+1\/1\s+\d+s\s+\d+s\n/);
    const pods = await run("get", "pods", "-l", "job-name=pi", "-o", "jsonpath={.items[*].status.phase}");
    expect(pods.stdout).toBe("Succeeded");
  });

  it("wait --for=condition=failed on a Job whose pod exits non-zero past its backoffLimit", async () => {
    const yaml = await run("create", "job", "oops", "--image=busybox", "--dry-run=client", "-o", "json", "--", "/bin/false");
    const job = JSON.parse(yaml.stdout) as { spec: Record<string, unknown> };
    job.spec["backoffLimit"] = 0;
    const { writeFile } = await import("node:fs/promises");
    const file = join(dir, "oops.json");
    await writeFile(file, JSON.stringify(job));
    expect((await run("create", "-f", file)).stdout.trim()).toBe("job.batch/oops created");
    const waited = await run("wait", "--for=condition=failed", "job/oops", "--timeout=30s");
    expect(waited.stdout.trim()).toBe("job.batch/oops condition met");
    const reason = await run("get", "job", "oops", "-o", 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}');
    expect(reason.stdout).toBe("BackoffLimitExceeded");
  });

  it("create cronjob, get cronjob, create job --from=cronjob", async () => {
    const created = await run("create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "/bin/true");
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe("cronjob.batch/tick created");
    const table = await run("get", "cronjob", "tick");
    expect(table.stdout).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\n/);
    expect(table.stdout).toMatch(/\ntick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s\n/);
    const manual = await run("create", "job", "tick-manual", "--from=cronjob/tick");
    expect(manual.stderr).toBe("");
    expect(manual.stdout.trim()).toBe("job.batch/tick-manual created");
    expect((await run("wait", "--for=condition=complete", "job/tick-manual", "--timeout=30s")).stdout.trim()).toBe(
      "job.batch/tick-manual condition met",
    );
    const owner = await run(
      "get",
      "job",
      "tick-manual",
      "-o",
      "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}",
    );
    expect(owner.stdout).toBe("CronJob/tick manual");
    const bad = await run("create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *");
    expect(bad.stderr).toContain('spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
  });
});

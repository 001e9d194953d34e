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

const MANIFEST = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
`;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-sts-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const rows = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));

// Each case runs several kubectl processes and waits on rollouts: more than the default 5 s on a loaded machine.
describe("kubectl 1.32: StatefulSets and volumes", { timeout: 60_000 }, () => {
  it("apply -f makes web-0..2 in order with a bound claim each; rollout status, scale, get sts/pvc/pv/sc as upstream prints them", async () => {
    const file = join(dir, "web.yaml");
    await writeFile(file, MANIFEST);
    expect(await run("apply", "-f", file)).toMatchObject({
      code: 0,
      stdout: "storageclass.storage.k8s.io/standard created\nservice/web created\nstatefulset.apps/web created\n",
    });
    const status = await run("rollout", "status", "statefulset/web", "--timeout=40s");
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("partitioned roll out complete: 3 new pods have been updated...");

    const sts = await run("get", "statefulset", "web");
    expect(rows(sts.stdout)[0]).toEqual(["NAME", "READY", "AGE"]);
    expect(rows(sts.stdout)[1]!.slice(0, 2)).toEqual(["web", "3/3"]);

    const pods = await run(
      "get",
      "pods",
      "-l",
      "app=web",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name} {.spec.hostname} {.spec.subdomain} {.metadata.labels.apps\\.kubernetes\\.io/pod-index}{"\\n"}{end}',
    );
    expect(pods.stdout.trim().split("\n").sort()).toEqual(["web-0 web-0 web 0", "web-1 web-1 web 1", "web-2 web-2 web 2"]);

    const pvc = await run("get", "pvc");
    expect(rows(pvc.stdout)[0]).toEqual([
      "NAME",
      "STATUS",
      "VOLUME",
      "CAPACITY",
      "ACCESS",
      "MODES",
      "STORAGECLASS",
      "VOLUMEATTRIBUTESCLASS",
      "AGE",
    ]);
    const claims = rows(pvc.stdout).slice(1);
    expect(claims.map((r) => r[0])).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
    for (const row of claims) {
      expect(row[1]).toBe("Bound");
      expect(row[2]).toMatch(/^pvc-[0-9a-f-]{36}$/);
      expect(row.slice(3, 7)).toEqual(["1Gi", "RWO", "standard", "<unset>"]);
    }
    const pv = await run("get", "pv");
    expect(rows(pv.stdout)[0]).toEqual([
      "NAME",
      "CAPACITY",
      "ACCESS",
      "MODES",
      "RECLAIM",
      "POLICY",
      "STATUS",
      "CLAIM",
      "STORAGECLASS",
      "VOLUMEATTRIBUTESCLASS",
      "REASON",
      "AGE",
    ]);
    expect(
      rows(pv.stdout)
        .slice(1)
        .map((r) => r.slice(1, 6))
        .sort(),
    ).toEqual([
      ["1Gi", "RWO", "Delete", "Bound", "default/www-web-0"],
      ["1Gi", "RWO", "Delete", "Bound", "default/www-web-1"],
      ["1Gi", "RWO", "Delete", "Bound", "default/www-web-2"],
    ]);
    expect(rows((await run("get", "sc")).stdout)[1]!.slice(0, 6)).toEqual([
      "standard",
      "(default)",
      "rancher.io/local-path",
      "Delete",
      "WaitForFirstConsumer",
      "false",
    ]);

    expect(await run("scale", "statefulset", "web", "--replicas=5")).toMatchObject({ code: 0, stdout: "statefulset.apps/web scaled\n" });
    await eventually(
      "5 ready",
      async () => (rows((await run("get", "statefulset", "web")).stdout)[1]![1] === "5/5" ? true : undefined),
      40_000,
    );
    expect(
      rows((await run("get", "pvc")).stdout)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(["www-web-0", "www-web-1", "www-web-2", "www-web-3", "www-web-4"]);

    // Scaling down keeps the claims (whenScaled: Retain, the default).
    expect((await run("scale", "statefulset", "web", "--replicas=2")).code).toBe(0);
    await eventually(
      "2 pods",
      async () => ((await run("get", "pods", "-l", "app=web", "-o", "name")).stdout.trim().split("\n").length === 2 ? true : undefined),
      40_000,
    );
    expect(rows((await run("get", "pvc")).stdout).slice(1)).toHaveLength(5);
  });

  it("set image rolls the pods from the highest ordinal; rollout undo goes back to the first revision", async () => {
    expect((await run("set", "image", "statefulset/web", "nginx=nginx:1.28")).code).toBe(0);
    const status = await run("rollout", "status", "statefulset/web", "--timeout=40s");
    expect(status.code, status.stderr).toBe(0);
    const images = async () =>
      (await run("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.containers[0].image}")).stdout.split(" ");
    await eventually("new image everywhere", async () => ((await images()).every((i) => i === "nginx:1.28") ? true : undefined), 40_000);
    const history = await run("rollout", "history", "statefulset/web");
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    expect((await run("rollout", "undo", "statefulset/web")).stdout).toBe("statefulset.apps/web rolled back\n");
    await eventually("old image everywhere", async () => ((await images()).every((i) => i === "nginx:1.27") ? true : undefined), 40_000);
  });
});

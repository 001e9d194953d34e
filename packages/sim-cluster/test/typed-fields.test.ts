// Deployments, Pods and Services are typed objects: fieldValidation=Strict refuses fields their
// schema does not declare, Warn names them in Warning headers and Ignore drops them — and in no
// mode is an unknown field stored. `kubectl explain` reads the same schemas.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-typed-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
}, 30_000);

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const container = { name: "web", image: "nginx", unknownContainerField: "x" };
const kinds = [
  {
    kind: "Deployment",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: (name: string) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: {
        unknownField: "foo",
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [container] } },
      },
    }),
    unknown: ["spec.unknownField", "spec.template.spec.containers[0].unknownContainerField"],
  },
  {
    kind: "Pod",
    path: "/api/v1/namespaces/default/pods",
    body: (name: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { unknownField: "foo", nodeName: "nowhere", containers: [container] },
    }),
    unknown: ["spec.containers[0].unknownContainerField", "spec.unknownField"],
  },
  {
    kind: "Service",
    path: "/api/v1/namespaces/default/services",
    body: (name: string) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name },
      spec: { unknownField: "foo", ports: [{ port: 80, unknownPortField: 1 }] },
    }),
    unknown: ["spec.ports[0].unknownPortField", "spec.unknownField"],
  },
];

async function post(
  path: string,
  validation: string,
  body: unknown,
): Promise<{ status: number; warning: string | null; body: Record<string, unknown> }> {
  const response = await fetch(`${cluster.url}${path}?fieldValidation=${validation}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, warning: response.headers.get("warning"), body: (await response.json()) as Record<string, unknown> };
}

async function stored(path: string, name: string): Promise<string> {
  const response = await fetch(`${cluster.url}${path}/${name}`);
  expect(response.status).toBe(200);
  return await response.text();
}

describe.each(kinds)("$kind", { timeout: 20_000 }, ({ kind, path, body, unknown }) => {
  const lower = kind.toLowerCase();

  it("Strict refuses unknown fields with 400 naming each, and stores nothing", async () => {
    const answer = await post(path, "Strict", body(`${lower}-strict`));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ kind: "Status", reason: "BadRequest" });
    for (const field of unknown) expect(answer.body["message"]).toContain(`unknown field "${field}"`);
    expect((await fetch(`${cluster.url}${path}/${lower}-strict`)).status).toBe(404);
  });

  it("Warn creates the object, warns about each unknown field and drops them", async () => {
    const answer = await post(path, "Warn", body(`${lower}-warn`));
    expect(answer.status).toBe(201);
    for (const field of unknown) expect(answer.warning).toContain(`unknown field \\"${field}\\"`);
    const text = await stored(path, `${lower}-warn`);
    expect(text).not.toMatch(/unknown(Field|ContainerField|PortField)/);
  });

  it("Ignore creates the object silently without the unknown fields", async () => {
    const answer = await post(path, "Ignore", body(`${lower}-ignore`));
    expect(answer.status).toBe(201);
    expect(answer.warning).toBeNull();
    expect(JSON.stringify(answer.body)).not.toMatch(/unknown(Field|ContainerField|PortField)/);
    expect(await stored(path, `${lower}-ignore`)).not.toMatch(/unknown(Field|ContainerField|PortField)/);
  });

  it("a status update keeps no unknown status field", async () => {
    const created = await post(path, "Ignore", body(`${lower}-status`));
    expect(created.status).toBe(201);
    const object = JSON.parse(await stored(path, `${lower}-status`)) as Record<string, unknown> & { status?: Record<string, unknown> };
    object.status = { ...object.status, unknownStatusField: "x" };
    const response = await fetch(`${cluster.url}${path}/${lower}-status/status?fieldValidation=Strict`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(object),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('unknown field "status.unknownStatusField"');
  });
});

describe("kubectl 1.32 explain", { timeout: 30_000 }, () => {
  it("shows a Deployment spec's fields with upstream's descriptions", async () => {
    const explained = await kubectl(kubeconfig, ["explain", "deployment.spec"]);
    expect(explained.stderr).toBe("");
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain("replicas\t<integer>");
    const text = explained.stdout.replaceAll(/\s+/g, " ");
    expect(text).toContain("FIELD: spec <DeploymentSpec>");
    expect(text).toContain("selector <LabelSelector> -required-");
    expect(text).toContain(
      "replicas <integer> Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.",
    );
    expect(text).toContain(
      "template <PodTemplateSpec> -required- PodTemplateSpec describes the data a pod should have when created from a template",
    );
  });

  it("follows the spec into the pod template's containers", async () => {
    const explained = await kubectl(kubeconfig, ["explain", "deployment.spec.template.spec.containers.livenessProbe"]);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain("initialDelaySeconds\t<integer>");
  });
});

describe("kubectl 1.32 apply --server-side", { timeout: 30_000 }, () => {
  const manifest = (image: string, extra = "") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
spec:
  replicas: 0
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
        env:
        - name: A
          value: "1"
      - name: sidecar
        image: busybox${extra}
`;

  it("merges containers by name and refuses an unknown field", async () => {
    const file = join(dir, "applied.yaml");
    await writeFile(file, manifest("nginx"));
    expect(await kubectl(kubeconfig, ["apply", "--server-side", "-f", file])).toMatchObject({
      code: 0,
      stdout: "deployment.apps/applied serverside-applied\n",
    });
    await writeFile(file, manifest("nginx:2"));
    expect((await kubectl(kubeconfig, ["apply", "--server-side", "-f", file])).code).toBe(0);
    const images = await kubectl(kubeconfig, ["get", "deployment", "applied", "-o", "jsonpath={.spec.template.spec.containers[*].image}"]);
    expect(images.stdout).toBe("nginx:2 busybox");

    await writeFile(file, manifest("nginx:3", "\n        unknownContainerField: x"));
    const refused = await kubectl(kubeconfig, ["apply", "--server-side", "-f", file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('.spec.template.spec.containers[name="sidecar"].unknownContainerField: field not declared in schema');
    const after = await kubectl(kubeconfig, ["get", "deployment", "applied", "-o", "json"]);
    expect(after.stdout).not.toContain("unknownContainerField");
  });
});

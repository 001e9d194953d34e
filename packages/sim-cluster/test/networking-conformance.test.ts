/**
 * Ports, with upstream's objects and assertions, of:
 * - kubernetes/kubernetes test/e2e/network/ingress.go (conformance): "Ingress API should support
 *   creating Ingress API operations".
 * - test/e2e/network/ingressclass.go: "IngressClass API should support creating IngressClass API
 *   operations" (conformance) and the IngressClass [Feature:Ingress] tests of the
 *   DefaultIngressClass admission plugin: "should set default value on new IngressClass", "should
 *   not set default value if no default IngressClass", "should choose the one with the later
 *   CreationTimestamp, if equal the one with the lower name when two ingressClasses are marked as
 *   default" and "should allow IngressClass to have Namespace-scoped parameters".
 * Plus kubectl 1.32's `create ingress` (a protobuf body) and `get ing`, and NetworkPolicy defaults.
 */
import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { Ingress } from "../src/resources/ingresses.js";
import type { IngressClass } from "../src/resources/ingress-classes.js";
import type { NetworkPolicy } from "../src/resources/network-policies.js";
import { kubectl } from "./kubectl.js";

const INGRESSES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "ingresses", namespaced: true };
const INGRESS_CLASSES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "ingressclasses", namespaced: false };
const NETWORK_POLICIES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "networkpolicies", namespaced: true };
const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };
const DEFAULT_CLASS = "ingressclass.kubernetes.io/is-default-class";

let cluster: SimCluster;
let client: KubeClient;
let dir: string;
let kubeconfig: string;
let namespaceCount = 0;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  client = new KubeClient({ server: cluster.url });
  dir = await mkdtemp(join(tmpdir(), "sim-networking-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
}, 60_000);
afterAll(async () => {
  client.close();
  await cluster.close();
  await rm(dir, { recursive: true, force: true });
});

async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${++namespaceCount}`;
  await client.create(NAMESPACES, undefined, { metadata: { name } });
  return name;
}

function createIngressClass(name: string, isDefault: boolean, uniqueName: string): Promise<IngressClass> {
  return client.create<IngressClass>(INGRESS_CLASSES, undefined, {
    metadata: {
      name,
      labels: { ingressclass: uniqueName, "special-label": "generic" },
      ...(isDefault ? { annotations: { [DEFAULT_CLASS]: "true" } } : {}),
    },
    spec: { controller: "example.com/controller" },
  });
}

function createBasicIngress(namespace: string): Promise<Ingress> {
  return client.create<Ingress>(INGRESSES, namespace, {
    metadata: { name: "ingress1" },
    spec: { defaultBackend: { service: { name: "defaultbackend", port: { number: 80 } } } },
  });
}

async function watchModified(
  path: string,
  query: Record<string, string>,
  until: (object: KubeObject) => boolean,
  act: () => Promise<void>,
): Promise<void> {
  const types: string[] = [];
  let resolveSeen: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (resolveSeen = resolve));
  const handle = await client.watch(path, query, (event) => {
    types.push(event.type);
    if (until(event.object)) resolveSeen();
  });
  try {
    await act();
    await seen;
    expect(new Set(types)).toEqual(new Set(["MODIFIED"]));
  } finally {
    handle.stop();
  }
}

describe("[sig-network] Ingress API (test/e2e/network/ingress.go)", { timeout: 30_000 }, () => {
  it("should support creating Ingress API operations", async () => {
    const ns = await newNamespace("ingress");
    const uniqueName = ns;
    const ingTemplate = (host: string): Ingress => ({
      metadata: { generateName: "e2e-example-ing", labels: { "special-label": uniqueName } },
      spec: {
        defaultBackend: { service: { name: "default-backend", port: { number: 8080 } } },
        rules: [
          {
            host,
            http: {
              paths: [
                { path: "/", pathType: "ImplementationSpecific", backend: { service: { name: "test-backend", port: { number: 8080 } } } },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: {} },
    });

    // getting /apis, /apis/networking.k8s.io, /apis/networking.k8s.io/v1
    const groups = (await client.request("GET", "/apis")) as { groups: Array<{ name: string; versions: Array<{ version: string }> }> };
    expect(groups.groups.find((g) => g.name === "networking.k8s.io")?.versions.map((v) => v.version)).toContain("v1");
    const group = (await client.request("GET", "/apis/networking.k8s.io")) as { versions: Array<{ version: string }> };
    expect(group.versions.map((v) => v.version)).toContain("v1");
    const resources = (await client.request("GET", "/apis/networking.k8s.io/v1")) as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toContain("ingresses");

    // creating
    await client.create(INGRESSES, ns, ingTemplate("host1.bar.com"));
    await client.create(INGRESSES, ns, ingTemplate("host2.bar.com"));
    const createdIngress = await client.create<Ingress>(INGRESSES, ns, ingTemplate("host3.bar.com"));
    const name = createdIngress.metadata?.name ?? "";

    // getting
    const gottenIngress = await client.get<Ingress>(INGRESSES, ns, name);
    expect(gottenIngress.metadata?.uid).toBe(createdIngress.metadata?.uid);

    // listing
    const ings = await client.list<Ingress>(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` });
    expect(ings.items).toHaveLength(3);

    // cluster-wide listing and watching
    const clusterIngs = await client.list<Ingress>(INGRESSES, undefined, { labelSelector: `special-label=${uniqueName}` });
    expect(clusterIngs.items).toHaveLength(3);
    const clusterWatch = await client.watch(
      "/apis/networking.k8s.io/v1/ingresses",
      { resourceVersion: ings.metadata?.resourceVersion ?? "", labelSelector: `special-label=${uniqueName}` },
      () => undefined,
    );
    clusterWatch.stop();

    // watching, patching, updating
    await watchModified(
      `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
      { resourceVersion: ings.metadata?.resourceVersion ?? "", labelSelector: `special-label=${uniqueName}` },
      (o) => o.metadata?.annotations?.["patched"] === "true",
      async () => {
        const patchedIngress = await client.patch<Ingress>(INGRESSES, ns, name, { metadata: { annotations: { patched: "true" } } });
        expect(patchedIngress.metadata?.annotations).toHaveProperty("patched", "true");
        const ingToUpdate = await client.get<Ingress>(INGRESSES, ns, name);
        ingToUpdate.metadata!.annotations!["updated"] = "true";
        const updatedIngress = await client.update<Ingress>(INGRESSES, ns, ingToUpdate);
        expect(updatedIngress.metadata?.annotations).toHaveProperty("updated", "true");
      },
    );

    // patching /status
    const lbStatus = { ingress: [{ ip: "169.1.1.1" }] };
    const patchedStatus = await client.patch<Ingress>(
      INGRESSES,
      ns,
      name,
      { metadata: { annotations: { patchedstatus: "true" } }, status: { loadBalancer: lbStatus } },
      undefined,
      "status",
    );
    expect(patchedStatus.status?.loadBalancer).toEqual(lbStatus);
    expect(patchedStatus.metadata?.annotations).toHaveProperty("patchedstatus", "true");

    // updating /status
    const statusToUpdate = await client.get<Ingress>(INGRESSES, ns, name);
    statusToUpdate.status = { loadBalancer: { ingress: [{ ip: "169.1.1.2" }] } };
    const updatedStatus = await client.update<Ingress>(INGRESSES, ns, statusToUpdate, "status");
    expect(updatedStatus.status?.loadBalancer).toEqual(statusToUpdate.status.loadBalancer);

    // get /status
    const gottenStatus = (await client.request(
      "GET",
      `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses/${name}/status`,
    )) as KubeObject;
    expect(gottenStatus.metadata?.uid).toBe(createdIngress.metadata?.uid);

    // deleting (no ingress controller, so no finalizers: a 404)
    await client.delete(INGRESSES, ns, name);
    await expect(client.get(INGRESSES, ns, name)).rejects.toMatchObject({ code: 404 });
    expect((await client.list(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` })).items.length).toBeLessThanOrEqual(3);

    // deleting a collection
    await client.deleteCollection(INGRESSES, ns, {}, { labelSelector: `special-label=${uniqueName}` });
    expect((await client.list(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` })).items).toHaveLength(0);
  });

  it("refuses an Ingress path without a pathType, with upstream's field and message", async () => {
    const ns = await newNamespace("ingress");
    await expect(
      client.create(INGRESSES, ns, {
        metadata: { name: "no-path-type" },
        spec: {
          rules: [{ host: "foo.com", http: { paths: [{ path: "/", backend: { service: { name: "svc", port: { number: 80 } } } }] } }],
        },
      }),
    ).rejects.toThrow(
      'Ingress.networking.k8s.io "no-path-type" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    );
    await expect(client.create(INGRESSES, ns, { metadata: { name: "empty" }, spec: {} })).rejects.toThrow(
      /spec: Invalid value: .*: either `defaultBackend` or `rules` must be specified/,
    );
  });
});

describe("[sig-network] IngressClass API (test/e2e/network/ingressclass.go)", { timeout: 30_000 }, () => {
  it("should support creating IngressClass API operations", async () => {
    const uniqueName = `ingressclass-api-${++namespaceCount}`;
    const resources = (await client.request("GET", "/apis/networking.k8s.io/v1")) as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toContain("ingressclasses");

    const ingressClass1 = await createIngressClass(`${uniqueName}-1`, false, uniqueName);
    await createIngressClass(`${uniqueName}-2`, false, uniqueName);
    await createIngressClass(`${uniqueName}-3`, false, uniqueName);

    const gottenIC = await client.get<IngressClass>(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "");
    expect(gottenIC.metadata?.uid).toBe(ingressClass1.metadata?.uid);

    const ics = await client.list<IngressClass>(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` });
    expect(ics.items).toHaveLength(3);

    await watchModified(
      "/apis/networking.k8s.io/v1/ingressclasses",
      { resourceVersion: ics.metadata?.resourceVersion ?? "", labelSelector: `ingressclass=${uniqueName}` },
      (o) => o.metadata?.annotations?.["patched"] === "true",
      async () => {
        const patchedIC = await client.patch<IngressClass>(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "", {
          metadata: { annotations: { patched: "true" } },
        });
        expect(patchedIC.metadata?.annotations?.["patched"]).toBe("true");
        patchedIC.metadata!.annotations!["updated"] = "true";
        const updatedIC = await client.update<IngressClass>(INGRESS_CLASSES, undefined, patchedIC);
        expect(updatedIC.metadata?.annotations?.["updated"]).toBe("true");
      },
    );

    await client.delete(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "");
    await expect(client.get(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "")).rejects.toMatchObject({ code: 404 });
    expect((await client.list(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` })).items).toHaveLength(2);

    await client.deleteCollection(INGRESS_CLASSES, undefined, {}, { labelSelector: `ingressclass=${uniqueName}` });
    expect((await client.list(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` })).items).toHaveLength(0);
  });
});

// The [Serial] tests: each leaves no IngressClass behind, as the default depends on all of them.
describe("[sig-network] IngressClass [Feature:Ingress] (test/e2e/network/ingressclass.go)", { timeout: 30_000 }, () => {
  it("should set default value on new IngressClass", async () => {
    const ns = await newNamespace("ingressclass");
    const ingressClass1 = await createIngressClass("ingressclass1", true, ns);
    try {
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(ingressClass1.metadata?.name);
    } finally {
      await client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });

  it("should not set default value if no default IngressClass", async () => {
    const ns = await newNamespace("ingressclass");
    await createIngressClass("ingressclass1", false, ns);
    try {
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBeUndefined();
    } finally {
      await client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });

  it("should choose the one with the later CreationTimestamp, if equal the one with the lower name when two ingressClasses are marked as default", async () => {
    const ns = await newNamespace("ingressclass");
    const ingressClass1 = await createIngressClass("ingressclass1", true, ns);
    const ingressClass2 = await createIngressClass("ingressclass2", true, ns);
    try {
      const created = (c: IngressClass) => Date.parse(c.metadata?.creationTimestamp ?? "");
      const expectedName = created(ingressClass2) > created(ingressClass1) ? ingressClass2.metadata?.name : ingressClass1.metadata?.name;
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(expectedName);
    } finally {
      await client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
      await client.delete(INGRESS_CLASSES, undefined, "ingressclass2");
    }
  });

  it("should allow IngressClass to have Namespace-scoped parameters", async () => {
    const created = await client.create<IngressClass>(INGRESS_CLASSES, undefined, {
      metadata: { name: "ingressclass1", labels: { ingressclass: "scoped", "special-label": "generic" } },
      spec: {
        controller: "example.com/controller",
        parameters: { scope: "Namespace", namespace: "foo-ns", kind: "fookind", name: "fooname", apiGroup: "example.com" },
      },
    });
    try {
      expect(created.spec?.parameters).toBeDefined();
      expect(created.spec?.parameters?.scope).toBe("Namespace");
    } finally {
      await client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });
});

describe("NetworkPolicy", { timeout: 30_000 }, () => {
  it("defaults policyTypes and port protocols as SetDefaults_NetworkPolicy, and refuses an ipBlock beside a selector", async () => {
    const ns = await newNamespace("netpol");
    const ingressOnly = await client.create<NetworkPolicy>(NETWORK_POLICIES, ns, {
      metadata: { name: "ingress-only" },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
    });
    expect(ingressOnly.spec?.policyTypes).toEqual(["Ingress"]);
    expect(ingressOnly.spec?.ingress?.[0]?.ports?.[0]?.protocol).toBe("TCP");
    const both = await client.create<NetworkPolicy>(NETWORK_POLICIES, ns, {
      metadata: { name: "both" },
      spec: {
        podSelector: { matchLabels: { app: "web" } },
        egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] }],
      },
    });
    expect(both.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    await expect(
      client.create(NETWORK_POLICIES, ns, {
        metadata: { name: "bad" },
        spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }] }] },
      }),
    ).rejects.toThrow("spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer");
    const table = await kubectl(kubeconfig, ["get", "netpol", "-n", ns]);
    expect(table.stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\nboth\s+app=web\s+\S+\ningress-only\s+<none>\s+\S+\n$/);
  });
});

describe("kubectl 1.32 and Ingresses", { timeout: 30_000 }, () => {
  it("`create ingress` (sent as protobuf) then `get ing` shows upstream's columns", async () => {
    const ns = await newNamespace("kubectl-ingress");
    const created = await kubectl(kubeconfig, ["create", "ingress", "simple", "--rule=foo.com/bar=svc1:8080", "-n", ns]);
    expect(created).toMatchObject({ code: 0, stdout: "ingress.networking.k8s.io/simple created\n" });
    const stored = await client.get<Ingress>(INGRESSES, ns, "simple");
    expect(stored.spec?.rules).toEqual([
      {
        host: "foo.com",
        http: { paths: [{ path: "/bar", pathType: "Exact", backend: { service: { name: "svc1", port: { number: 8080 } } } }] },
      },
    ]);
    const table = await kubectl(kubeconfig, ["get", "ing", "-n", ns]);
    expect(table.stdout).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nsimple\s+<none>\s+foo\.com\s+80\s+\S+\n$/);
  });
});

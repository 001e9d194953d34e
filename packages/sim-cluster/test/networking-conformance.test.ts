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
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { describe, expect, it } from "vitest";
import type { Ingress } from "../src/resources/ingresses.js";
import type { IngressClass } from "../src/resources/ingress-classes.js";
import type { NetworkPolicy } from "../src/resources/network-policies.js";
import { kubectl } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const INGRESSES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "ingresses", namespaced: true };
const INGRESS_CLASSES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "ingressclasses", namespaced: false };
const NETWORK_POLICIES: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "networkpolicies", namespaced: true };
const DEFAULT_CLASS = "ingressclass.kubernetes.io/is-default-class";

const sim = useSimCluster({ nodes: 1 });

function createIngressClass(name: string, isDefault: boolean, uniqueName: string): Promise<IngressClass> {
  return sim.client.create<IngressClass>(INGRESS_CLASSES, undefined, {
    metadata: {
      name,
      labels: { ingressclass: uniqueName, "special-label": "generic" },
      ...(isDefault ? { annotations: { [DEFAULT_CLASS]: "true" } } : {}),
    },
    spec: { controller: "example.com/controller" },
  });
}

function createBasicIngress(namespace: string): Promise<Ingress> {
  return sim.client.create<Ingress>(INGRESSES, namespace, {
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
  const handle = await sim.client.watch(path, query, (event) => {
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
    const ns = await sim.newNamespace("ingress");
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
    const groups = (await sim.client.request("GET", "/apis")) as { groups: Array<{ name: string; versions: Array<{ version: string }> }> };
    expect(groups.groups.find((g) => g.name === "networking.k8s.io")?.versions.map((v) => v.version)).toContain("v1");
    const group = (await sim.client.request("GET", "/apis/networking.k8s.io")) as { versions: Array<{ version: string }> };
    expect(group.versions.map((v) => v.version)).toContain("v1");
    const resources = (await sim.client.request("GET", "/apis/networking.k8s.io/v1")) as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toContain("ingresses");

    // creating
    await sim.client.create(INGRESSES, ns, ingTemplate("host1.bar.com"));
    await sim.client.create(INGRESSES, ns, ingTemplate("host2.bar.com"));
    const createdIngress = await sim.client.create<Ingress>(INGRESSES, ns, ingTemplate("host3.bar.com"));
    const name = createdIngress.metadata?.name ?? "";

    // getting
    const gottenIngress = await sim.client.get<Ingress>(INGRESSES, ns, name);
    expect(gottenIngress.metadata?.uid).toBe(createdIngress.metadata?.uid);

    // listing
    const ings = await sim.client.list<Ingress>(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` });
    expect(ings.items).toHaveLength(3);

    // cluster-wide listing and watching
    const clusterIngs = await sim.client.list<Ingress>(INGRESSES, undefined, { labelSelector: `special-label=${uniqueName}` });
    expect(clusterIngs.items).toHaveLength(3);
    const clusterWatch = await sim.client.watch(
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
        const patchedIngress = await sim.client.patch<Ingress>(INGRESSES, ns, name, { metadata: { annotations: { patched: "true" } } });
        expect(patchedIngress.metadata?.annotations).toHaveProperty("patched", "true");
        const ingToUpdate = await sim.client.get<Ingress>(INGRESSES, ns, name);
        ingToUpdate.metadata!.annotations!["updated"] = "true";
        const updatedIngress = await sim.client.update<Ingress>(INGRESSES, ns, ingToUpdate);
        expect(updatedIngress.metadata?.annotations).toHaveProperty("updated", "true");
      },
    );

    // patching /status
    const lbStatus = { ingress: [{ ip: "169.1.1.1" }] };
    const patchedStatus = await sim.client.patch<Ingress>(
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
    const statusToUpdate = await sim.client.get<Ingress>(INGRESSES, ns, name);
    statusToUpdate.status = { loadBalancer: { ingress: [{ ip: "169.1.1.2" }] } };
    const updatedStatus = await sim.client.update<Ingress>(INGRESSES, ns, statusToUpdate, "status");
    expect(updatedStatus.status?.loadBalancer).toEqual(statusToUpdate.status.loadBalancer);

    // get /status
    const gottenStatus = (await sim.client.request(
      "GET",
      `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses/${name}/status`,
    )) as KubeObject;
    expect(gottenStatus.metadata?.uid).toBe(createdIngress.metadata?.uid);

    // deleting (no ingress controller, so no finalizers: a 404)
    await sim.client.delete(INGRESSES, ns, name);
    await expect(sim.client.get(INGRESSES, ns, name)).rejects.toMatchObject({ code: 404 });
    expect((await sim.client.list(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` })).items.length).toBeLessThanOrEqual(3);

    // deleting a collection
    await sim.client.deleteCollection(INGRESSES, ns, {}, { labelSelector: `special-label=${uniqueName}` });
    expect((await sim.client.list(INGRESSES, ns, { labelSelector: `special-label=${uniqueName}` })).items).toHaveLength(0);
  });

  it("refuses an Ingress path without a pathType, with upstream's field and message", async () => {
    const ns = await sim.newNamespace("ingress");
    await expect(
      sim.client.create(INGRESSES, ns, {
        metadata: { name: "no-path-type" },
        spec: {
          rules: [{ host: "foo.com", http: { paths: [{ path: "/", backend: { service: { name: "svc", port: { number: 80 } } } }] } }],
        },
      }),
    ).rejects.toThrow(
      'Ingress.networking.k8s.io "no-path-type" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    );
    await expect(sim.client.create(INGRESSES, ns, { metadata: { name: "empty" }, spec: {} })).rejects.toThrow(
      /spec: Invalid value: .*: either `defaultBackend` or `rules` must be specified/,
    );
  });
});

describe("[sig-network] IngressClass API (test/e2e/network/ingressclass.go)", { timeout: 30_000 }, () => {
  it("should support creating IngressClass API operations", async () => {
    const uniqueName = sim.uniqueName("ingressclass-api");
    const resources = (await sim.client.request("GET", "/apis/networking.k8s.io/v1")) as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toContain("ingressclasses");

    const ingressClass1 = await createIngressClass(`${uniqueName}-1`, false, uniqueName);
    await createIngressClass(`${uniqueName}-2`, false, uniqueName);
    await createIngressClass(`${uniqueName}-3`, false, uniqueName);

    const gottenIC = await sim.client.get<IngressClass>(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "");
    expect(gottenIC.metadata?.uid).toBe(ingressClass1.metadata?.uid);

    const ics = await sim.client.list<IngressClass>(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` });
    expect(ics.items).toHaveLength(3);

    await watchModified(
      "/apis/networking.k8s.io/v1/ingressclasses",
      { resourceVersion: ics.metadata?.resourceVersion ?? "", labelSelector: `ingressclass=${uniqueName}` },
      (o) => o.metadata?.annotations?.["patched"] === "true",
      async () => {
        const patchedIC = await sim.client.patch<IngressClass>(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "", {
          metadata: { annotations: { patched: "true" } },
        });
        expect(patchedIC.metadata?.annotations?.["patched"]).toBe("true");
        patchedIC.metadata!.annotations!["updated"] = "true";
        const updatedIC = await sim.client.update<IngressClass>(INGRESS_CLASSES, undefined, patchedIC);
        expect(updatedIC.metadata?.annotations?.["updated"]).toBe("true");
      },
    );

    await sim.client.delete(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "");
    await expect(sim.client.get(INGRESS_CLASSES, undefined, ingressClass1.metadata?.name ?? "")).rejects.toMatchObject({ code: 404 });
    expect((await sim.client.list(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` })).items).toHaveLength(2);

    await sim.client.deleteCollection(INGRESS_CLASSES, undefined, {}, { labelSelector: `ingressclass=${uniqueName}` });
    expect((await sim.client.list(INGRESS_CLASSES, undefined, { labelSelector: `ingressclass=${uniqueName}` })).items).toHaveLength(0);
  });
});

// The [Serial] tests: each leaves no IngressClass behind, as the default depends on all of them.
describe("[sig-network] IngressClass [Feature:Ingress] (test/e2e/network/ingressclass.go)", { timeout: 30_000 }, () => {
  it("should set default value on new IngressClass", async () => {
    const ns = await sim.newNamespace("ingressclass");
    const ingressClass1 = await createIngressClass("ingressclass1", true, ns);
    try {
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(ingressClass1.metadata?.name);
    } finally {
      await sim.client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });

  it("should not set default value if no default IngressClass", async () => {
    const ns = await sim.newNamespace("ingressclass");
    await createIngressClass("ingressclass1", false, ns);
    try {
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBeUndefined();
    } finally {
      await sim.client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });

  it("should choose the one with the later CreationTimestamp, if equal the one with the lower name when two ingressClasses are marked as default", async () => {
    const ns = await sim.newNamespace("ingressclass");
    const ingressClass1 = await createIngressClass("ingressclass1", true, ns);
    const ingressClass2 = await createIngressClass("ingressclass2", true, ns);
    try {
      const created = (c: IngressClass) => Date.parse(c.metadata?.creationTimestamp ?? "");
      const expectedName = created(ingressClass2) > created(ingressClass1) ? ingressClass2.metadata?.name : ingressClass1.metadata?.name;
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(expectedName);
    } finally {
      await sim.client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
      await sim.client.delete(INGRESS_CLASSES, undefined, "ingressclass2");
    }
  });

  it("should allow IngressClass to have Namespace-scoped parameters", async () => {
    const created = await sim.client.create<IngressClass>(INGRESS_CLASSES, undefined, {
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
      await sim.client.delete(INGRESS_CLASSES, undefined, "ingressclass1");
    }
  });
});

describe("NetworkPolicy", { timeout: 30_000 }, () => {
  it("defaults policyTypes and port protocols as SetDefaults_NetworkPolicy, and refuses an ipBlock beside a selector", async () => {
    const ns = await sim.newNamespace("netpol");
    const ingressOnly = await sim.client.create<NetworkPolicy>(NETWORK_POLICIES, ns, {
      metadata: { name: "ingress-only" },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
    });
    expect(ingressOnly.spec?.policyTypes).toEqual(["Ingress"]);
    expect(ingressOnly.spec?.ingress?.[0]?.ports?.[0]?.protocol).toBe("TCP");
    const both = await sim.client.create<NetworkPolicy>(NETWORK_POLICIES, ns, {
      metadata: { name: "both" },
      spec: {
        podSelector: { matchLabels: { app: "web" } },
        egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] }],
      },
    });
    expect(both.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    await expect(
      sim.client.create(NETWORK_POLICIES, ns, {
        metadata: { name: "bad" },
        spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }] }] },
      }),
    ).rejects.toThrow("spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer");
    const table = await kubectl(sim.kubeconfig, ["get", "netpol", "-n", ns]);
    expect(table.stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\nboth\s+app=web\s+\S+\ningress-only\s+<none>\s+\S+\n$/);
  });
});

describe("kubectl 1.32 and Ingresses", { timeout: 30_000 }, () => {
  it("`create ingress` (sent as protobuf) then `get ing` shows upstream's columns", async () => {
    const ns = await sim.newNamespace("kubectl-ingress");
    const created = await kubectl(sim.kubeconfig, ["create", "ingress", "simple", "--rule=foo.com/bar=svc1:8080", "-n", ns]);
    expect(created).toMatchObject({ code: 0, stdout: "ingress.networking.k8s.io/simple created\n" });
    const stored = await sim.client.get<Ingress>(INGRESSES, ns, "simple");
    expect(stored.spec?.rules).toEqual([
      {
        host: "foo.com",
        http: { paths: [{ path: "/bar", pathType: "Exact", backend: { service: { name: "svc1", port: { number: 8080 } } } }] },
      },
    ]);
    const table = await kubectl(sim.kubeconfig, ["get", "ing", "-n", ns]);
    expect(table.stdout).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nsimple\s+<none>\s+foo\.com\s+80\s+\S+\n$/);
  });
});

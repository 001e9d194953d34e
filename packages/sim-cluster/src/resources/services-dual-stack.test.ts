import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { NodePortAllocator } from "../allocators/node-port.js";
import { repairingServiceStore } from "../services-store.js";
import { servicesResource, type Service, type ServiceAllocators } from "./services.js";

// Upstream: pkg/registry/core/service/storage/storage_test.go (TestCreateInitIPFields,
// TestUpdateDualStack...) and pkg/apis/core/validation's TestValidateServiceCreate dual-stack cases.

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

type Svc = Service & KubeObject;

function cluster(ranges: string) {
  const [primary, secondary] = ranges.split(",");
  const allocators: ServiceAllocators = {
    clusterIPs: new ClusterIPAllocator(primary!),
    ...(secondary !== undefined ? { secondaryClusterIPs: new ClusterIPAllocator(secondary) } : {}),
    nodePorts: new NodePortAllocator(),
  };
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return { allocators, store: repairingServiceStore(createResourceStore(servicesResource(allocators), storage), allocators) };
}

const V4 = "10.96.0.0/24";
const V6 = "fd00:10:96::/112";

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the write to be refused");
}

const svc = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

describe("dual-stack services on a single-stack cluster", () => {
  it("defaults SingleStack and the range's family; PreferDualStack gets one address", async () => {
    const { store } = cluster(V4);
    const plain = (await store.create("default", svc("plain"))) as Svc;
    expect(plain.spec).toMatchObject({ ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] });
    expect(plain.spec!.clusterIPs).toEqual([plain.spec!.clusterIP]);
    const prefer = (await store.create("default", svc("prefer", { ipFamilyPolicy: "PreferDualStack" }))) as Svc;
    expect(prefer.spec).toMatchObject({ ipFamilyPolicy: "PreferDualStack", ipFamilies: ["IPv4"] });
    expect(prefer.spec!.clusterIPs).toHaveLength(1);
  });

  it("refuses RequireDualStack and families or addresses the cluster does not have", async () => {
    const { store } = cluster(V4);
    const required = await refusal(store.create("default", svc("a", { ipFamilyPolicy: "RequireDualStack" })));
    expect(required.code).toBe("Invalid");
    expect(required.message).toContain(
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
    expect((await refusal(store.create("default", svc("b", { ipFamilies: ["IPv6"] })))).message).toContain(
      'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster',
    );
    expect((await refusal(store.create("default", svc("c", { clusterIP: "fd00:10:96::10" })))).message).toContain(
      'spec.clusterIPs[0]: Invalid value: ["fd00:10:96::10"]: IPv6 is not configured on this cluster',
    );
  });

  it("gives a headless service without selector both families (RequireDualStack), as no address is allocated", async () => {
    const { store } = cluster(V4);
    const headless = (await store.create("default", { metadata: { name: "h" }, spec: { clusterIP: "None" } })) as Svc;
    expect(headless.spec).toMatchObject({
      clusterIP: "None",
      clusterIPs: ["None"],
      ipFamilyPolicy: "RequireDualStack",
      ipFamilies: ["IPv4", "IPv6"],
    });
    const selected = (await store.create("default", svc("hs", { clusterIP: "None" }))) as Svc;
    expect(selected.spec).toMatchObject({ clusterIPs: ["None"], ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] });
  });
});

describe("dual-stack services on a dual-stack cluster", () => {
  it("allocates one address per family, primary family first, each from its range", async () => {
    const { store, allocators } = cluster(`${V4},${V6}`);
    const prefer = (await store.create("default", svc("prefer", { ipFamilyPolicy: "PreferDualStack" }))) as Svc;
    expect(prefer.spec!.ipFamilies).toEqual(["IPv4", "IPv6"]);
    const [v4, v6] = prefer.spec!.clusterIPs!;
    expect(prefer.spec!.clusterIP).toBe(v4);
    expect(allocators.clusterIPs.isAllocated(v4!)).toBe(true);
    expect(allocators.secondaryClusterIPs!.isAllocated(v6!)).toBe(true);

    const v6First = (await store.create("default", svc("v6first", { ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv6"] }))) as Svc;
    expect(v6First.spec!.ipFamilies).toEqual(["IPv6", "IPv4"]);
    expect(allocators.secondaryClusterIPs!.contains(v6First.spec!.clusterIP!)).toBe(true);

    const single = (await store.create("default", svc("single"))) as Svc;
    expect(single.spec).toMatchObject({ ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] });
    expect(single.spec!.clusterIPs).toHaveLength(1);
  });

  it("infers the families from the addresses asked for, and takes exactly those", async () => {
    const { store } = cluster(`${V4},${V6}`);
    const asked = (await store.create(
      "default",
      svc("asked", { ipFamilyPolicy: "RequireDualStack", clusterIP: "fd00:10:96::a", clusterIPs: ["fd00:10:96::a", "10.96.0.10"] }),
    )) as Svc;
    expect(asked.spec).toMatchObject({
      clusterIP: "fd00:10:96::a",
      clusterIPs: ["fd00:10:96::a", "10.96.0.10"],
      ipFamilies: ["IPv6", "IPv4"],
    });
    const taken = await refusal(store.create("default", svc("again", { ipFamilyPolicy: "PreferDualStack", clusterIP: "10.96.0.10" })));
    expect(taken.message).toContain(
      'spec.clusterIPs: Invalid value: ["10.96.0.10",""]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
  });

  it("validates the fields against each other with upstream's messages", async () => {
    const { store } = cluster(`${V4},${V6}`);
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { ipFamilies: ["IPv4", "IPv6"] },
        "spec.ipFamilyPolicy: Invalid value: \"SingleStack\": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
      ],
      [
        { ipFamilyPolicy: "SingleStack", clusterIP: "10.96.0.5", clusterIPs: ["10.96.0.5", "fd00:10:96::5"] },
        "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
      ],
      [
        { ipFamilyPolicy: "RequireDualStack", clusterIP: "10.96.0.5", clusterIPs: ["10.96.0.5", "10.96.0.6"] },
        'spec.clusterIPs: Invalid value: ["10.96.0.5","10.96.0.6"]: may specify no more than one IP for each IP family',
      ],
      [
        { ipFamilies: ["IPv6"], clusterIP: "10.96.0.5" },
        'spec.clusterIPs[0]: Invalid value: "10.96.0.5": expected an IPv6 value as indicated by `ipFamilies[0]`',
      ],
      [{ ipFamilies: ["IPv4", "IPv4"], ipFamilyPolicy: "RequireDualStack" }, 'spec.ipFamilies[1]: Duplicate value: "IPv4"'],
      [{ ipFamilies: ["IPv5"] }, 'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"'],
      [
        { ipFamilyPolicy: "DualStack" },
        'spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
      ],
      [
        { clusterIP: "10.96.0.5", clusterIPs: ["10.96.0.6"] },
        'spec.clusterIPs: Invalid value: ["10.96.0.6"]: first value must match `clusterIP`',
      ],
      [{ clusterIPs: ["10.96.0.6"] }, "must be empty when `clusterIP` is not specified"],
      [{ clusterIP: "None", clusterIPs: ["None", "10.96.0.6"] }, "'None' must be the first and only value"],
      [
        { type: "NodePort", clusterIP: "None" },
        "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services",
      ],
      [
        { type: "ExternalName", externalName: "example.com", ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" },
        "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
      ],
    ];
    for (const [spec, message] of cases) {
      const refused = await refusal(store.create("default", svc("bad", spec)));
      expect({ spec, code: refused.code }).toEqual({ spec, code: "Invalid" });
      expect(refused.message).toContain(message);
    }
    expect((await store.list("default")).items).toHaveLength(0);
  });

  it("upgrades to dual-stack by policy, keeps the primary, and downgrades only with SingleStack, freeing the secondary", async () => {
    const { store, allocators } = cluster(`${V4},${V6}`);
    const single = (await store.create("default", svc("web"))) as Svc;
    const primary = single.spec!.clusterIP!;

    const upgraded = (await store.guaranteedUpdate("default", "web", (s) => ({
      ...s,
      spec: { ...(s as Svc).spec, ipFamilyPolicy: "RequireDualStack" },
    }))) as Svc;
    expect(upgraded.spec!.ipFamilies).toEqual(["IPv4", "IPv6"]);
    expect(upgraded.spec!.clusterIPs![0]).toBe(primary);
    const secondary = upgraded.spec!.clusterIPs![1]!;
    expect(allocators.secondaryClusterIPs!.isAllocated(secondary)).toBe(true);

    const changed = await refusal(
      store.guaranteedUpdate("default", "web", (s) => ({
        ...s,
        spec: { ...(s as Svc).spec, clusterIP: "10.96.0.99", clusterIPs: ["10.96.0.99", secondary] },
      })),
    );
    expect(changed.message).toContain(`spec.clusterIPs[0]: Invalid value: ["10.96.0.99","${secondary}"]: may not change once set`);

    const cut = await refusal(
      store.guaranteedUpdate("default", "web", (s) => ({ ...s, spec: { ...(s as Svc).spec, clusterIPs: [primary] } })),
    );
    expect(cut.message).toContain(
      `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary cluster IP`,
    );
    expect(allocators.secondaryClusterIPs!.isAllocated(secondary)).toBe(true);

    const downgraded = (await store.guaranteedUpdate("default", "web", (s) => ({
      ...s,
      spec: { ...(s as Svc).spec, ipFamilyPolicy: "SingleStack" },
    }))) as Svc;
    expect(downgraded.spec).toMatchObject({
      clusterIP: primary,
      clusterIPs: [primary],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
    });
    expect(allocators.secondaryClusterIPs!.isAllocated(secondary)).toBe(false);
    expect(allocators.clusterIPs.isAllocated(primary)).toBe(true);
  });

  it("keeps a PreferDualStack service as it is when written back, and frees both addresses on delete", async () => {
    const { store, allocators } = cluster(`${V4},${V6}`);
    const created = (await store.create("default", svc("web", { ipFamilyPolicy: "PreferDualStack" }))) as Svc;
    // A client that sends only the singular field (an old one) keeps both addresses.
    const relabelled = (await store.guaranteedUpdate("default", "web", (s) => {
      const spec = { ...(s as Svc).spec };
      delete spec.clusterIPs;
      return { ...s, metadata: { ...s.metadata, labels: { a: "b" } }, spec };
    })) as Svc;
    expect(relabelled.spec!.clusterIPs).toEqual(created.spec!.clusterIPs);
    await store.delete("default", "web");
    const [v4, v6] = created.spec!.clusterIPs!;
    expect(allocators.clusterIPs.isAllocated(v4!)).toBe(false);
    expect(allocators.secondaryClusterIPs!.isAllocated(v6!)).toBe(false);
    expect(allocators.clusterIPs.used + allocators.secondaryClusterIPs!.used).toBe(0);
  });
});

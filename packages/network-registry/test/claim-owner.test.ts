import { KubeClient, PATCH_MERGE } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "../src/kube/api.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { allocate, claim, release } from "../src/kube/client.js";
import { eventually, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";

/*
 * Claim ownership: a claim created with the annotation kana.kubekit.io/owner naming its creator
 * can be changed or deleted only by that user (and written by the arbiter), through the policy
 * kana install applies; other claimants, who hold the same role, are refused.
 */

const TOKENS = [
  "admin-token,admin,uid-admin,system:masters",
  "cni-token,cni,uid-cni",
  "lb-token,load-balancer,uid-lb",
  "arbiter-token,system:serviceaccount:kube-system:kana-arbiter,uid-arbiter",
].join("\n");

const BINDINGS = { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterrolebindings", namespaced: false };
const bind = (name: string, role: string, user: string) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
  subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
});

describe("claim ownership", { timeout: 30_000 }, () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  let cni: KubeClient;
  let lb: KubeClient;

  beforeAll(async () => {
    plane = await startKanaPlane({ authentication: { tokenFile: TOKENS }, authorization: { modes: ["RBAC"] } }, { token: "admin-token" });
    await plane.client.create(BINDINGS, undefined, bind("kana-claimant-cni", "kana:claimant", "cni"));
    await plane.client.create(BINDINGS, undefined, bind("kana-claimant-lb", "kana:claimant", "load-balancer"));
    arbiter = await runArbiter({ config: { server: plane.url, token: "arbiter-token" }, leaderElection: false });
    cni = new KubeClient({ server: plane.url, token: "cni-token" });
    lb = new KubeClient({ server: plane.url, token: "lb-token" });
  });
  afterAll(async () => {
    await arbiter?.stop();
    cni?.close();
    lb?.close();
    await plane?.close();
  });

  const owned = (owner: string, prefix: string) => ({
    metadata: { name: "cni", annotations: { "kana.kubekit.io/owner": owner } },
    spec: { addressSpace: [{ reference: { group: "cilium.io", resource: "ciliumnodes" }, prefix }] },
  });

  it("refuses a creator that names someone else as owner", async () => {
    const error = await claim(lb, owned("cni", "10.100.0.0/16")).catch((e: unknown) => e);
    expect((error as Error).message).toContain("kana.kubekit.io/owner must name the user creating the claim (load-balancer)");
  });

  it("lets only the owner change or delete its claim; the arbiter still decides it", async () => {
    const decided = await claim(cni, owned("cni", "10.100.0.0/16"), { timeoutMs: 15_000 });
    expect(decided.status?.phase).toBe("Allocated");
    // A pool the owner delegates from: the arbiter puts its finalizer on it before recording a block from it.
    const pool = {
      metadata: { name: "cni-pool", annotations: { "kana.kubekit.io/owner": "cni" } },
      spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.110.0.0/16", delegateTo: ["*"] }] },
    };
    expect((await claim(cni, pool, { timeoutMs: 15_000 })).status?.phase).toBe("Allocated");
    const block = await allocate(
      plane.client,
      { claim: "node-ipam", pool: "10.110.0.0/16", prefixLength: 24, reference: { group: "", resource: "nodes", name: "node-a" } },
      { timeoutMs: 15_000 },
    );
    expect(block.status?.prefix).toBe("10.110.0.0/24");
    const held = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "cni-pool");
    expect(held.metadata.finalizers).toEqual(["kana.kubekit.io/delegations"]);
    await release(plane.client, block.metadata.name);

    const rewrite = await lb
      .patch(
        NETWORK_CLAIMS,
        undefined,
        "cni",
        { spec: { addressSpace: [{ reference: { group: "", resource: "services" }, prefix: "10.101.0.0/16" }] } },
        PATCH_MERGE,
      )
      .catch((e: unknown) => e);
    expect(rewrite).toMatchObject({ code: 403 });
    expect((rewrite as Error).message).toContain("NetworkClaim cni is owned by cni: load-balancer may not change or delete it");
    const takeOver = await lb
      .patch(NETWORK_CLAIMS, undefined, "cni", { metadata: { annotations: { "kana.kubekit.io/owner": "load-balancer" } } }, PATCH_MERGE)
      .catch((e: unknown) => e);
    expect(takeOver).toMatchObject({ code: 403 });
    const removal = await lb.delete(NETWORK_CLAIMS, undefined, "cni").catch((e: unknown) => e);
    expect(removal).toMatchObject({ code: 403 });

    const changed = await claim(cni, owned("cni", "10.102.0.0/16"), { timeoutMs: 15_000 });
    expect(changed.status?.allocatedPrefixes).toBe("10.102.0.0/16");
    const handOver = await cni
      .patch(NETWORK_CLAIMS, undefined, "cni", { metadata: { annotations: { "kana.kubekit.io/owner": "load-balancer" } } }, PATCH_MERGE)
      .catch((e: unknown) => e);
    expect(handOver).toMatchObject({ code: 403 });
    await cni.delete(NETWORK_CLAIMS, undefined, "cni");
    const gone = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "cni").catch((e: unknown) => e);
    expect(
      gone === undefined ||
        (gone as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !== undefined ||
        (gone as { code?: number }).code === 404,
    ).toBe(true);
  });
});

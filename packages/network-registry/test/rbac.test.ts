import { KubeClient, PATCH_MERGE } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "../src/kube/api.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { claim } from "../src/kube/client.js";
import { claimOf, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";

/*
 * The bootstrap roles and the well-known claims policy on a control plane that authenticates
 * (static tokens) and authorizes with RBAC: components hold kana:claimant, the arbiter kana:arbiter.
 */

const TOKENS = [
  "admin-token,admin,uid-admin,system:masters",
  "kcm-token,system:kube-controller-manager,uid-kcm",
  "cni-token,cni,uid-cni",
  "arbiter-token,system:serviceaccount:kube-system:kana-arbiter,uid-arbiter",
].join("\n");

const binding = (name: string, role: string, user: string) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
  subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
});

describe("RBAC and the well-known claims policy", () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  const as = (token: string) => new KubeClient({ server: plane.url, token });
  let cni: KubeClient;
  let kcm: KubeClient;

  beforeAll(async () => {
    plane = await startKanaPlane({ authentication: { tokenFile: TOKENS }, authorization: { modes: ["RBAC"] } }, { token: "admin-token" });
    const bindings = { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterrolebindings", namespaced: false };
    await plane.client.create(bindings, undefined, binding("kana-claimant-cni", "kana:claimant", "cni"));
    await plane.client.create(bindings, undefined, binding("kana-claimant-kcm", "kana:claimant", "system:kube-controller-manager"));
    await plane.client.create(
      bindings,
      undefined,
      binding("kana-arbiter", "kana:arbiter", "system:serviceaccount:kube-system:kana-arbiter"),
    );
    // The arbiter runs with nothing but its role (its Lease, status, finalizers, Events).
    arbiter = await runArbiter({
      config: { server: plane.url, token: "arbiter-token" },
      leaderElection: { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
    });
    cni = as("cni-token");
    kcm = as("kcm-token");
  });
  afterAll(async () => {
    await arbiter?.stop();
    cni?.close();
    kcm?.close();
    await plane?.close();
  });

  it("kube-controller-manager writes its well-known claim and the arbiter decides it", async () => {
    const decided = await claim(kcm, claimOf("kube-controller-manager", "10.64.0.0/10"), { timeoutMs: 15_000 });
    expect(decided.status?.phase).toBe("Allocated");
  });

  it("another claimant may not write a well-known claim", async () => {
    const error = await claim(cni, claimOf("kube-apiserver", "10.96.0.0/12")).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "api-error" });
    expect((error as Error).message).toContain(
      "ValidatingAdmissionPolicy 'kana-well-known-claims' with binding 'kana-well-known-claims' denied request: NetworkClaim kube-apiserver is well-known: cni may not write it",
    );
    const deleteError = await cni.delete(NETWORK_CLAIMS, undefined, "kube-controller-manager").catch((e: unknown) => e);
    expect(deleteError).toMatchObject({ code: 403 });
  });

  it("a claimant claims its own ranges but cannot write status", async () => {
    const decided = await claim(cni, claimOf("cni", "10.100.0.0/16"), { timeoutMs: 15_000 });
    expect(decided.status).toMatchObject({ phase: "Conflict" });
    const forged = await cni
      .patch<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "cni", { status: { phase: "Allocated" } }, PATCH_MERGE, "status")
      .catch((e: unknown) => e);
    expect(forged).toMatchObject({ code: 403, reason: "Forbidden" });
    expect((forged as Error).message).toBe(
      'networkclaims.kana.kubekit.io "cni" is forbidden: User "cni" cannot patch resource "networkclaims/status" in API group "kana.kubekit.io" at the cluster scope',
    );
  });
});

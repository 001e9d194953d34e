import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "../src/kube/api.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { claim } from "../src/kube/client.js";
import { install } from "../src/kube/install.js";
import { claimOf, eventually, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";

/*
 * An arbiter running as a user the well-known claims policy does not name (an administrator's
 * kubeconfig, as in the README) cannot record its decision on kube-controller-manager. That
 * claim is reported (Event StatusWriteFailed) and every other claim is still decided; installing
 * with the arbiter's identity lets it write the well-known claim and binds kana:arbiter to it.
 */

const TOKENS = [
  "admin-token,admin,uid-admin,system:masters",
  "kcm-token,system:kube-controller-manager,uid-kcm",
  "ops-token,kana-ops,uid-ops",
].join("\n");

const EVENTS = { group: "", version: "v1", resource: "events", namespaced: true };
const BINDINGS = { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterrolebindings", namespaced: false };

describe("the arbiter's identity and failed writes", { timeout: 30_000 }, () => {
  let plane: KanaPlane;
  const clients: KubeClient[] = [];
  const arbiters: Arbiter[] = [];
  const as = (token: string) => {
    const client = new KubeClient({ server: plane.url, token });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    plane = await startKanaPlane({ authentication: { tokenFile: TOKENS }, authorization: { modes: ["RBAC"] } }, { token: "admin-token" });
    await plane.client.create(BINDINGS, undefined, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "kana-claimant-kcm" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kana:claimant" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-controller-manager" }],
    });
  });
  afterAll(async () => {
    for (const arbiter of arbiters) await arbiter.stop();
    for (const client of clients) client.close();
    await plane?.close();
  });

  it("decides every other claim when one claim's status cannot be written, and reports that one", async () => {
    arbiters.push(await runArbiter({ config: { server: plane.url, token: "admin-token" }, leaderElection: false }));
    const kcm = as("kcm-token");
    await kcm.create(NETWORK_CLAIMS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkClaim",
      ...claimOf("kube-controller-manager", "10.64.0.0/10"),
    });
    const later = await claim(plane.client, claimOf("cni", "10.200.0.0/16"), { timeoutMs: 15_000 });
    expect(later.status?.phase).toBe("Allocated");
    const event = await eventually("a StatusWriteFailed Event", async () => {
      const events = (await plane.client.list<{ reason?: string; message?: string; involvedObject?: { name?: string } }>(EVENTS, "default"))
        .items;
      return events.find((e) => e.reason === "StatusWriteFailed" && e.involvedObject?.name === "kube-controller-manager");
    });
    expect(event.message).toContain("NetworkClaim kube-controller-manager is well-known: admin may not write it");
    const stuck = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "kube-controller-manager");
    expect(stuck.status?.phase).toBeUndefined();
    await arbiters.pop()!.stop();
  });

  it("installs the policy and the arbiter's binding for the identity it runs as", async () => {
    await install(plane.client, { arbiterIdentity: "kana-ops" });
    const binding = await plane.client.get<{ subjects?: unknown[] }>(BINDINGS, undefined, "kana:arbiter");
    expect(binding.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "kana-ops" }]);
    // kana-ops has no other role: the binding is what lets it lead, write status and Events.
    arbiters.push(
      await runArbiter({
        config: { server: plane.url, token: "ops-token" },
        leaderElection: { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
      }),
    );
    const decided = await eventually("kube-controller-manager decided", async () => {
      const object = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "kube-controller-manager");
      return object.status?.phase;
    });
    expect(decided).toBe("Allocated");
  });
});

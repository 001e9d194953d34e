import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "../src/kube/api.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { install } from "../src/kube/install.js";
import { startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";
import { kana } from "../src/cli/run-cli.js";

/*
 * `kana import` through the built CLI: the well-known claims for the cluster's configured ranges,
 * printed, then applied as the arbiter's identity (the only user the policy lets write both).
 */

const TOKENS = "ops-token,kana-ops,uid-ops,system:masters\n";

describe("kana import", { timeout: 60_000 }, () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    plane = await startKanaPlane(
      { authentication: { tokenFile: TOKENS }, authorization: { modes: ["RBAC"] } },
      { token: "ops-token", install: false },
    );
    await install(plane.client, { arbiterIdentity: "kana-ops" });
    arbiter = await runArbiter({ config: { server: plane.url, token: "ops-token" }, leaderElection: false });
    dir = mkdtempSync(join(tmpdir(), "kana-import-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "${plane.url}"}}]
users: [{name: ops, user: {token: ops-token}}]
contexts: [{name: test, context: {cluster: test, user: ops}}]
current-context: test
`,
    );
  });
  afterAll(async () => {
    await arbiter?.stop();
    await plane?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const flags = ["--cluster-cidr", "10.64.0.0/10", "--service-cluster-ip-range", "10.96.0.0/16"];

  it("prints kube-apiserver and kube-controller-manager claims, the service range carved out of the pod range", async () => {
    const printed = await kana(["import", "--kubeconfig", kubeconfig, ...flags]);
    expect(printed.code).toBe(0);
    const claims = parseAllDocuments(printed.stdout).map((d) => d.toJS() as NetworkClaimObject);
    expect(
      claims.map((c) => [
        c.metadata.name,
        c.spec.addressSpace.map((r) => `${r.prefix}${r.status === "unavailable" ? " unavailable" : ""}`),
      ]),
    ).toEqual([
      ["kube-apiserver", ["10.96.0.0/16"]],
      ["kube-controller-manager", ["10.64.0.0/10", "10.96.0.0/16 unavailable"]],
    ]);
    expect((await plane.client.list(NETWORK_CLAIMS)).items).toEqual([]);
  });

  it("applies them with --apply and waits for the arbiter", async () => {
    const applied = await kana(["import", "--kubeconfig", kubeconfig, ...flags, "--apply"]);
    expect(applied.stderr).toMatch(/^kana: note: ServiceCIDRs \(networking.k8s.io\) are not served/);
    expect(applied.stdout).toBe(
      "networkclaim/kube-apiserver Allocated 10.96.0.0/16\nnetworkclaim/kube-controller-manager Allocated 10.64.0.0/10\n",
    );
    expect(applied.code).toBe(0);
    const stored = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "kube-controller-manager");
    expect(stored.status?.phase).toBe("Allocated");
  });
});

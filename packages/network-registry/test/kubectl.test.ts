import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The real kubectl 1.32, found as the control plane's suites find it (missing fails, never skips).
import { findKubectl132 } from "../../generic-controlplane/test/harness/tools.js";
import { NETWORK_ALLOCATIONS, NETWORK_CLAIMS, type NetworkAllocationObject, type NetworkClaimObject } from "../src/kube/api.js";
import { allocate, claim } from "../src/kube/client.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { installManifestsYAML } from "../src/kube/manifests.js";
import { eventually, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";

function kubectl(kubeconfig: string, args: readonly string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      findKubectl132(),
      ["--kubeconfig", kubeconfig, ...args],
      { timeout: 30_000, encoding: "utf8" },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
      },
    );
    child.stdin!.end(stdin ?? "");
  });
}

/** kubectl's table output as one record per row, cells cut at the header's column starts. */
function columns(output: string): Record<string, string>[] {
  const [header, ...lines] = output.trimEnd().split("\n");
  const starts = [...header!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.map((line) => Object.fromEntries(starts.map((c, i) => [c.name, line.slice(c.at, starts[i + 1]?.at ?? line.length).trim()])));
}

const claimYAML = (name: string, prefix: string) => `apiVersion: kana.kubekit.io/v1alpha1
kind: NetworkClaim
metadata:
  name: ${name}
spec:
  addressSpace:
  - reference: {group: "", resource: services}
    prefix: ${prefix}
`;

describe("kubectl 1.32 against NetworkClaims", () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    plane = await startKanaPlane();
    arbiter = await runArbiter({ config: plane.url, leaderElection: false });
    dir = mkdtempSync(join(tmpdir(), "kana-kubectl-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "${plane.url}"}}]
users: [{name: test, user: {}}]
contexts: [{name: test, context: {cluster: test, user: test}}]
current-context: test
`,
    );
  });
  afterAll(async () => {
    await arbiter?.stop();
    await plane?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("applies claims and shows the arbiter's decision in the PREFIXES and STATUS columns", async () => {
    const applied = await kubectl(kubeconfig, ["apply", "-f", "-"], `${claimYAML("services", "10.96.0.0/12")}---\n`);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toBe("networkclaim.kana.kubekit.io/services created\n");
    await eventually("services decided", async () =>
      (await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "services")).status?.phase ? true : undefined,
    );
    expect((await kubectl(kubeconfig, ["apply", "-f", "-"], claimYAML("cni", "10.100.0.0/16"))).code).toBe(0);
    await eventually("cni decided", async () =>
      (await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "cni")).status?.phase ? true : undefined,
    );

    const table = await kubectl(kubeconfig, ["get", "networkclaims"]);
    expect(table.stderr).toBe("");
    const rows = columns(table.stdout);
    expect(Object.keys(rows[0]!)).toEqual(["NAME", "PREFIXES", "STATUS", "AGE"]);
    expect(rows.map((r) => [r["NAME"], r["PREFIXES"], r["STATUS"]])).toEqual([
      ["cni", "", "Conflict"],
      ["services", "10.96.0.0/12", "Allocated"],
    ]);

    const wide = await kubectl(kubeconfig, ["get", "nc", "-o", "wide"]);
    expect(wide.stdout.split("\n")[0]!.split(/\s{2,}/)).toEqual(["NAME", "PREFIXES", "STATUS", "SEQUENCE", "AGE"]);
    const conflict = await kubectl(kubeconfig, ["get", "networkclaim", "cni", "-o", "jsonpath={.status.addressSpace[0].conflict.message}"]);
    expect(conflict.stdout).toMatch(
      /^10\.100\.0\.0\/16 is inside 10\.96\.0\.0\/12 allocated to services \(services\); nearest free \/16: /,
    );
    expect((await kubectl(kubeconfig, ["get", "kana"])).stdout).toContain("networkclaim.kana.kubekit.io/services");
  });

  it("deletes a pool only once no block allocated from it is live, its own claim's blocks included", async () => {
    await claim(plane.client, {
      metadata: { name: "node-ipam" },
      spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.240.0.0/16" }] },
    });
    const blocks = await Promise.all(
      [0, 1, 2].map((i) =>
        allocate(plane.client, {
          claim: "node-ipam",
          pool: "10.240.0.0/16",
          prefixLength: 24,
          reference: { group: "", resource: "nodes", name: `node-${i}` },
          name: `node-ipam-node-${i}`,
        }),
      ),
    );
    expect(blocks.map((b) => b.status?.phase)).toEqual(["Allocated", "Allocated", "Allocated"]);

    const deleted = await kubectl(kubeconfig, ["delete", "nc", "node-ipam", "--wait=false"]);
    expect(deleted.stdout).toContain("deleted");
    // The claim waits on its finalizer; its blocks stay allocated and whois still names it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const pool = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "node-ipam");
    expect(pool.metadata.deletionTimestamp).toBeDefined();
    const allocations = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items.filter(
      (a) => a.spec.claim === "node-ipam",
    );
    expect(allocations.map((a) => [a.metadata.name, a.status?.phase, a.status?.prefix])).toEqual(
      blocks.map((b) => [b.metadata.name, "Allocated", b.status?.prefix]),
    );

    // Once the blocks are given back, the claim goes.
    expect((await kubectl(kubeconfig, ["delete", "na", ...blocks.map((b) => b.metadata.name)])).code).toBe(0);
    await eventually("the pool deleted", async () => {
      try {
        await plane.client.get(NETWORK_CLAIMS, undefined, "node-ipam");
        return undefined;
      } catch {
        return true;
      }
    });
  });

  it("refuses a well-known claim from a user the policy does not name", async () => {
    const refused = await kubectl(kubeconfig, ["apply", "-f", "-"], claimYAML("kube-apiserver", "10.96.0.0/12"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `networkclaims.kana.kubekit.io "kube-apiserver" is forbidden: ValidatingAdmissionPolicy 'kana-well-known-claims' with binding 'kana-well-known-claims' denied request: NetworkClaim kube-apiserver is well-known:`,
    );
  });

  it("refuses a prefix with host bits set, or with leading zeros, with Kubernetes' CIDR messages", async () => {
    const hostBits = await kubectl(kubeconfig, ["apply", "-f", "-"], claimYAML("bad-host-bits", "10.0.0.1/8"));
    expect(hostBits.code).toBe(1);
    expect(hostBits.stderr).toContain(
      'The NetworkClaim "bad-host-bits" is invalid: spec.addressSpace[0].prefix: Invalid value: "string": must be in canonical form',
    );
    const leadingZero = await kubectl(kubeconfig, ["apply", "-f", "-"], claimYAML("bad-leading-zero", "010.0.0.0/8"));
    expect(leadingZero.code).toBe(1);
    expect(leadingZero.stderr).toContain(
      'The NetworkClaim "bad-leading-zero" is invalid: spec.addressSpace[0].prefix: Invalid value: "string": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    const listed = await kubectl(kubeconfig, ["get", "networkclaims", "-o", "name"]);
    expect(listed.stdout).not.toContain("bad-");
  });

  it("installs from the YAML stream kana install prints", async () => {
    const second = await startKanaPlane({}, { install: false });
    try {
      const config = join(dir, "kubeconfig-2");
      writeFileSync(
        config,
        `apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "${second.url}"}}]
users: [{name: t, user: {}}]
contexts: [{name: t, context: {cluster: t, user: t}}]
current-context: t
`,
      );
      const yaml = installManifestsYAML()
        .split("---\n")
        .filter((doc) => !doc.includes("kind: ClusterRole\n"))
        .join("---\n");
      const applied = await kubectl(config, ["apply", "-f", "-"], yaml);
      expect(applied.stderr).toBe("");
      expect(applied.stdout.trimEnd().split("\n")).toEqual([
        "customresourcedefinition.apiextensions.k8s.io/networkclaims.kana.kubekit.io created",
        "customresourcedefinition.apiextensions.k8s.io/networkallocations.kana.kubekit.io created",
        "validatingadmissionpolicy.admissionregistration.k8s.io/kana-well-known-claims created",
        "validatingadmissionpolicybinding.admissionregistration.k8s.io/kana-well-known-claims created",
        "validatingadmissionpolicy.admissionregistration.k8s.io/kana-claim-owner created",
        "validatingadmissionpolicybinding.admissionregistration.k8s.io/kana-claim-owner created",
        "validatingadmissionpolicy.admissionregistration.k8s.io/kana-arbiter-term created",
        "validatingadmissionpolicybinding.admissionregistration.k8s.io/kana-arbiter-term created",
      ]);
    } finally {
      await second.close();
    }
  });
});

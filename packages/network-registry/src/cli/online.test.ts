import { selectBuiltinResources } from "@kubekit/generic-controlplane";
import { startTestPlane } from "@kubekit/generic-controlplane/testing";
import { nodesResource } from "@kubekit/sim-cluster";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { runArbiter, type Arbiter } from "../kube/arbiter.js";
import { claim as applyClaim } from "../kube/client.js";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "../kube/api.js";
import { NODES, node, SERVICE_CIDRS, serveServiceCIDRs, serviceCIDR } from "../kube/importers/test-plane.js";
import { eventually, startKanaPlane, type KanaPlane } from "../kube/test-support.js";
// The real kubectl 1.32, found as the control plane's suites find it (missing fails, never skips).
import { findKubectl132 } from "../../../generic-controlplane/test/harness/tools.js";
import { CLI, kana, run, startKana } from "./run-cli.js";

/** These tests run the built `kana` binary against a real control plane on 127.0.0.1. */

let dir = "";
const file = (name: string) => join(dir, name);

/** A kubeconfig for `server`, with `token` when given. */
function kubeconfigFor(contexts: { name: string; server: string; token?: string }[], current: string): string {
  return (
    [
      "apiVersion: v1",
      "kind: Config",
      `current-context: ${current}`,
      "clusters:",
      ...contexts.map((c) => `- name: ${c.name}\n  cluster:\n    server: ${c.server}`),
      "users:",
      ...contexts.map((c) => `- name: ${c.name}\n  user:${c.token === undefined ? " {}" : `\n    token: ${c.token}`}`),
      "contexts:",
      ...contexts.map((c) => `- name: ${c.name}\n  context:\n    cluster: ${c.name}\n    user: ${c.name}`),
    ].join("\n") + "\n"
  );
}

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kana-online-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("kana against a cluster", { timeout: 60_000 }, () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  let kubeconfig = "";

  beforeAll(async () => {
    plane = await startKanaPlane({ resources: [...selectBuiltinResources(), nodesResource] });
    arbiter = await runArbiter({ config: plane.url, leaderElection: false });
    kubeconfig = file("cluster.kubeconfig");
    await writeFile(kubeconfig, kubeconfigFor([{ name: "kana-test", server: plane.url }], "kana-test"));
    await writeFile(
      file("kcm.yaml"),
      `
apiVersion: kana.kubekit.io/v1alpha1
kind: NetworkClaim
metadata: { name: node-ipam }
spec:
  addressSpace:
    - reference: { group: "", resource: pods }
      prefix: 10.64.0.0/10
    - reference: { group: "", resource: services }
      prefix: 10.96.0.0/16
      status: unavailable
`,
    );
  });

  afterAll(async () => {
    await arbiter?.stop();
    await plane?.close();
  });

  it("claims a range, waits for the arbiter and prints the decision", async () => {
    // The well-known names are protected by the API's admission policy; an anonymous user is refused.
    const wellKnown = await kana([
      "claim",
      "--name",
      "kube-apiserver",
      "--prefix",
      "10.96.0.0/16",
      "--resource",
      "services",
      "--kubeconfig",
      kubeconfig,
    ]);
    expect(wellKnown.code).toBe(3);
    expect(wellKnown.stderr).toMatch(
      /^kana: Error from server \(Forbidden\): networkclaims\.kana\.kubekit\.io "kube-apiserver" is forbidden: ValidatingAdmissionPolicy 'kana-well-known-claims' with binding 'kana-well-known-claims' denied request: NetworkClaim kube-apiserver is well-known: /,
    );
    const apiserver = await kana([
      "claim",
      "--name",
      "cluster-services",
      "--prefix",
      "10.96.0.0/16",
      "--resource",
      "services",
      "--kubeconfig",
      kubeconfig,
    ]);
    expect(apiserver.stderr).toBe("");
    expect(apiserver.code).toBe(0);
    expect(apiserver.stdout).toBe("networkclaim.kana.kubekit.io/cluster-services Allocated\n  allocated  10.96.0.0/16  services\n");
    const kcm = await kana(["claim", "-f", file("kcm.yaml"), "--kubeconfig", kubeconfig]);
    expect(kcm.code).toBe(0);
    expect(kcm.stdout).toContain("  allocated  10.64.0.0/10  pods\n  excluded   10.96.0.0/16  services (carved out)");
  });

  it("exits 1 with the conflict when a claim loses", async () => {
    const cni = await kana(["claim", "--name", "cni", "--prefix", "10.96.128.0/17", "--kubeconfig", kubeconfig]);
    expect(cni.code).toBe(1);
    expect(cni.stdout).toMatch(
      /^networkclaim\.kana\.kubekit\.io\/cni Conflict\n {2}CONFLICT {3}10\.96\.128\.0\/17 {2}pods: Overlap: 10\.96\.128\.0\/17 is inside 10\.96\.0\.0\/16 allocated to cluster-services/,
    );
  });

  it("refuses an invalid prefix before sending anything, with the fix", async () => {
    const bad = await kana(["claim", "--name", "typo", "--prefix", "10.0.0.1/24", "--kubeconfig", kubeconfig]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("kana: 10.0.0.1/24 has host bits set; did you mean 10.0.0.0/24?\n");
    const names = (await plane.client.list<NetworkClaimObject>(NETWORK_CLAIMS)).items.map((c) => c.metadata.name);
    expect(names).not.toContain("typo");
  });

  it("lists claims like kubectl get, and as JSON and YAML", async () => {
    await eventually("the claims of the earlier tests", async () =>
      (await plane.client.list(NETWORK_CLAIMS)).items.length >= 3 ? true : undefined,
    );
    const table = await kana(["list", "--kubeconfig", kubeconfig]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME {15}PHASE {7}GRANTED {3}PREFIXES {7}AGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ["cluster-services", "Allocated", "1/1", "10.96.0.0/16"],
      ["node-ipam", "Allocated", "1/1", "10.64.0.0/10"],
      ["cni", "Conflict", "0/1", "<none>"],
    ]);
    const json = JSON.parse((await kana(["list", "-o", "json", "--kubeconfig", kubeconfig])).stdout) as {
      kind: string;
      items: NetworkClaimObject[];
    };
    expect(json.kind).toBe("List");
    expect(json.items.map((c) => c.status?.phase)).toEqual(["Allocated", "Allocated", "Conflict"]);
    const yaml = parse((await kana(["list", "-o", "yaml", "--kubeconfig", kubeconfig])).stdout) as typeof json;
    expect(yaml.items.map((c) => c.metadata.name)).toEqual(json.items.map((c) => c.metadata.name));
  });

  it("answers whois from the cluster, with KUBECONFIG as kubectl reads it (a list, merged)", async () => {
    const missing = file("missing.kubeconfig");
    const result = await kana(["whois", "10.96.0.10"], { KUBECONFIG: `${missing}:${kubeconfig}` });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("owner     cluster-services (10.96.0.0/16)");
    const json = JSON.parse((await kana(["whois", "10.70.1.1", "-o", "json"], { KUBECONFIG: kubeconfig })).stdout) as {
      mostSpecific: { claim: string };
    };
    expect(json.mostSpecific.claim).toBe("node-ipam");
  });

  it("allocates a block for a node and lists it", async () => {
    const result = await kana([
      "allocate",
      "--from",
      "node-ipam",
      "--length",
      "24",
      "--for",
      "nodes/node-1",
      "--strategy",
      "first-fit",
      "--kubeconfig",
      kubeconfig,
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("10.64.0.0/24\n");
    const table = await kana(["list", "allocations", "--kubeconfig", kubeconfig]);
    expect(table.stdout).toMatch(
      /^NAME\s+CLAIM\s+POOL\s+PREFIX\s+PHASE\s+FOR\s+AGE\n\S+\s+node-ipam\s+10\.64\.0\.0\/10\s+10\.64\.0\.0\/24\s+Allocated\s+nodes\/node-1\s+\S+\n$/,
    );
    const bad = await kana(["allocate", "--from", "node-ipam", "--length", "24", "--for", "Nodes/x y", "--kubeconfig", kubeconfig]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--for must name a resource as <resource>[.<group>][/<name>]");
    const tiny = await kana([
      "claim",
      "--name",
      "tiny",
      "--prefix",
      "10.250.0.0/23",
      "--resource",
      "ciliumnodes",
      "--group",
      "cilium.io",
      "--kubeconfig",
      kubeconfig,
    ]);
    expect(tiny.code).toBe(0);
    const first = await kana([
      "allocate",
      "--from",
      "tiny",
      "--length",
      "24",
      "--for",
      "ciliumnodes.cilium.io/a",
      "--kubeconfig",
      kubeconfig,
      "-o",
      "json",
    ]);
    expect(first.stderr).toBe("");
    const object = JSON.parse(first.stdout) as {
      spec: { claim: string; pool: string; reference: unknown };
      status: { phase: string; prefix: string };
    };
    expect(object.spec).toMatchObject({
      claim: "tiny",
      pool: "10.250.0.0/23",
      reference: { group: "cilium.io", resource: "ciliumnodes", name: "a" },
    });
    expect(object.status).toMatchObject({ phase: "Allocated", prefix: "10.250.0.0/24" });
    expect(
      (await kana(["allocate", "--from", "tiny", "--length", "/24", "--for", "ciliumnodes.cilium.io/b", "--kubeconfig", kubeconfig]))
        .stdout,
    ).toBe("10.250.1.0/24\n");
    const exhausted = await kana([
      "allocate",
      "--from",
      "tiny",
      "--length",
      "24",
      "--for",
      "ciliumnodes.cilium.io/c",
      "--kubeconfig",
      kubeconfig,
    ]);
    expect(exhausted.code).toBe(1);
    expect(exhausted.stderr).toMatch(/^kana: .*no free \/24 left in 10\.250\.0\.0\/23/);
  });

  it("drift checks the ranges given by --cluster-cidr and --service-cluster-ip-range", async () => {
    const unclaimed = await kana([
      "drift",
      "--kubeconfig",
      kubeconfig,
      "--cluster-cidr",
      "10.200.0.0/16",
      "--service-cluster-ip-range",
      "10.97.0.0/16",
      "-o",
      "json",
    ]);
    const report = JSON.parse(unclaimed.stdout) as {
      drift: boolean;
      findings: { type: string; observed?: { prefix: string; use: string } }[];
    };
    expect(report.findings.map((f) => [f.type, f.observed?.prefix, f.observed?.use])).toEqual(
      expect.arrayContaining([
        ["Unclaimed", "10.200.0.0/16", "pods"],
        ["Unclaimed", "10.97.0.0/16", "services"],
      ]),
    );
    expect(unclaimed.code).toBe(1);
    // Each flag on its own, in the human form.
    const services = await kana(["drift", "--kubeconfig", kubeconfig, "--service-cluster-ip-range", "10.97.0.0/16"]);
    expect(services.stdout).toContain("10.97.0.0/16");
    expect(services.code).toBe(1);
    const pods = await kana(["drift", "--kubeconfig", kubeconfig, "--cluster-cidr", "10.200.0.0/16"]);
    expect(pods.stdout).toContain("10.200.0.0/16");
    expect(pods.code).toBe(1);
  });

  it("drift judges claims labelled for another cluster only with --cluster naming it", async () => {
    const other = await applyClaim(
      plane.client,
      {
        metadata: { name: "other-services", labels: { "kana.kubekit.io/cluster": "other" } },
        spec: { addressSpace: [{ reference: { group: "", resource: "services" }, prefix: "10.150.0.0/16" }] },
      },
      { timeoutMs: 15_000 },
    );
    expect(other.status?.phase).toBe("Allocated");
    try {
      const unusedOf = async (args: string[]) => {
        const report = JSON.parse(
          (await kana(["drift", "--kubeconfig", kubeconfig, "--service-cluster-ip-range", "10.96.0.0/16", "-o", "json", ...args])).stdout,
        ) as { findings: { type: string; claim?: string }[] };
        return report.findings.filter((f) => f.type === "Unused").map((f) => f.claim);
      };
      expect(await unusedOf([])).not.toContain("other-services");
      expect(await unusedOf(["--cluster", "other"])).toContain("other-services");
    } finally {
      await plane.client.delete(NETWORK_CLAIMS, undefined, "other-services");
    }
  });

  it("reports drift between nodes' pod CIDRs and the claims, and exits 0 once they agree", async () => {
    await plane.client.create(NODES, undefined, node("node-1", ["10.64.0.0/24"]));
    await plane.client.create(NODES, undefined, node("node-2", ["10.96.3.0/24"]));
    const drifted = await kana(["drift", "--kubeconfig", kubeconfig, "--service-cluster-ip-range", "10.96.0.0/16"]);
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toContain(
      "OutsidePodRange  10.96.3.0/24 (pods of node node-2) is outside the claimed pod ranges 10.64.0.0/10 (node-ipam); it is inside 10.96.0.0/16 carved out by node-ipam",
    );
    expect(drifted.stdout).toContain(
      "Overlap          10.96.3.0/24 (pods of node node-2) is inside 10.96.0.0/16 claimed by cluster-services for services",
    );
    expect(drifted.stdout).toContain("note             ServiceCIDRs (networking.k8s.io) are not served by this API server");
    expect(drifted.stdout).toContain("DRIFT");
    const json = JSON.parse((await kana(["drift", "--kubeconfig", kubeconfig, "-o", "json"])).stdout) as {
      drift: boolean;
      findings: { type: string; observed?: { source: { name: string } } }[];
    };
    expect(json.drift).toBe(true);
    expect(json.findings.map((f) => [f.type, f.observed?.source.name])).toEqual([
      ["OutsidePodRange", "node-2"],
      ["Overlap", "node-2"],
    ]);

    await plane.client.delete(NODES, undefined, "node-2");
    const clean = await kana([
      "drift",
      "--kubeconfig",
      kubeconfig,
      "--cluster-cidr",
      "10.64.0.0/10",
      "--service-cluster-ip-range",
      "10.96.0.0/16",
    ]);
    expect(clean.stdout).toContain("OK: the cluster uses what it claims");
    expect(clean.code).toBe(0);

    // Where ServiceCIDRs are served, they are the service ranges in use.
    await serveServiceCIDRs(plane.client);
    await plane.client.create(SERVICE_CIDRS, undefined, serviceCIDR("kubernetes", ["10.96.0.0/16"]));
    await plane.client.create(SERVICE_CIDRS, undefined, serviceCIDR("extra", ["10.100.0.0/16"]));
    const served = await kana(["drift", "--kubeconfig", kubeconfig]);
    expect(served.code).toBe(1);
    expect(served.stdout.split("\n").filter((l) => /^(Unclaimed|Overlap|OutsidePodRange|Unused|note) /.test(l))).toEqual([
      "Unclaimed  10.100.0.0/16 (services (ServiceCIDR extra)) is in use but not claimed for services",
      "Overlap    10.100.0.0/16 (services (ServiceCIDR extra)) is inside 10.64.0.0/10 claimed by node-ipam for pods",
    ]);
  });

  it("picks the context with --context, and says when it does not exist", async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const two = file("two-contexts.kubeconfig");
    await writeFile(
      two,
      kubeconfigFor(
        [
          { name: "dead", server: dead },
          { name: "live", server: plane.url },
        ],
        "dead",
      ),
    );
    const refused = await kana(["list", "--kubeconfig", two]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(
      `kana: The connection to the server ${new URL(dead).host} was refused - did you specify the right host or port?\n`,
    );
    const live = await kana(["list", "--kubeconfig", two, "--context", "live"]);
    expect(live.code).toBe(0);
    expect(live.stdout).toContain("cluster-services");
    const globalFlags = await kana(["--kubeconfig", two, "--context", "live", "whois", "10.96.0.1"]);
    expect(globalFlags.stdout).toContain("owner     cluster-services");
    const nope = await kana(["list", "--kubeconfig", two, "--context", "nope"]);
    expect(nope.code).toBe(2);
    expect(nope.stderr).toBe(`kana: context "nope" does not exist in ${two}\n`);
  });

  it("works as a kubectl plugin: kubectl kana …", async () => {
    const bin = file("bin");
    await mkdir(bin);
    await symlink(CLI, join(bin, "kubectl-kana"));
    const PATH = [bin, dirname(process.execPath), process.env["PATH"] ?? ""].join(":");
    const plugins = await run(findKubectl132(), ["plugin", "list"], { PATH });
    expect(plugins.stdout).toContain(join(bin, "kubectl-kana"));
    const whois = await run(findKubectl132(), ["kana", "whois", "10.96.0.10"], { PATH, KUBECONFIG: kubeconfig });
    expect(whois.stderr).toBe("");
    expect(whois.code).toBe(0);
    expect(whois.stdout).toContain("owner     cluster-services (10.96.0.0/16)");
    const help = await run(findKubectl132(), ["kana", "--help"], { PATH });
    expect(help.stdout).toMatch(/^Usage: kubectl kana /);
    const usage = await run(findKubectl132(), ["kana", "list", "--context", "nope"], { PATH, KUBECONFIG: kubeconfig });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe(`kubectl kana: context "nope" does not exist in KUBECONFIG=${kubeconfig}\n`);
  });
});

describe("kana against a cluster without the NetworkClaim API", { timeout: 60_000 }, () => {
  it("says how to install it, installs it, and prints the manifests", async () => {
    const test = await startTestPlane();
    try {
      const kubeconfig = file("bare.kubeconfig");
      await writeFile(kubeconfig, kubeconfigFor([{ name: "bare", server: test.url }], "bare"));
      const before = await kana(["list", "--kubeconfig", kubeconfig]);
      expect(before.code).toBe(3);
      expect(before.stderr).toBe(
        'kana: the server doesn\'t have a resource type "networkclaims" (kana.kubekit.io/v1alpha1); install the NetworkClaim API with "kana install --apply"\n',
      );
      const printed = await kana(["install"]);
      expect(printed.code).toBe(0);
      const kinds = parseAllDocuments(printed.stdout).map((d) => (d.toJS() as { kind: string }).kind);
      expect(kinds).toContain("CustomResourceDefinition");
      expect(kinds).toContain("ValidatingAdmissionPolicy");
      // --arbiter-identity names the user the policy lets write the well-known claims, and binds kana:arbiter to it.
      const forOps = (await kana(["install", "--arbiter-identity", "kana-ops", "-o", "json"])).stdout;
      const items = (
        JSON.parse(forOps) as { items: { kind: string; spec?: { variables?: { expression: string }[] }; subjects?: unknown[] }[] }
      ).items;
      expect(items.find((i) => i.kind === "ValidatingAdmissionPolicy")!.spec!.variables![0]!.expression).toContain("'kana-ops'");
      expect(items.find((i) => i.kind === "ClusterRoleBinding")!.subjects).toEqual([
        { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "kana-ops" },
      ]);
      expect(printed.stdout).toContain("subjects:\n  - kind: ServiceAccount\n    namespace: kube-system\n    name: kana-arbiter\n");
      const applied = await kana(["install", "--apply", "--kubeconfig", kubeconfig]);
      expect(applied.stderr).toBe(
        "kana: note: skipped the ClusterRoles: the server does not serve rbac.authorization.k8s.io ClusterRoles\n",
      );
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain("customresourcedefinition.apiextensions.k8s.io/networkclaims.kana.kubekit.io applied\n");
      // install waits until the CRDs are Established, so the API is there right away.
      const after = await kana(["list", "--kubeconfig", kubeconfig]);
      expect(after.code).toBe(0);
      expect(after.stderr).toBe("No NetworkClaims found.\n");
    } finally {
      await test.close();
    }
  });

  it("reports Forbidden with the server's reason", async () => {
    const tokens = 'admin-token,admin,1,"system:masters"\nviewer-token,nobody,2\n';
    const test = await startTestPlane({ authentication: { tokenFile: tokens }, authorization: { modes: ["RBAC"] } });
    try {
      const kubeconfig = file("nobody.kubeconfig");
      await writeFile(kubeconfig, kubeconfigFor([{ name: "nobody", server: test.url, token: "viewer-token" }], "nobody"));
      const result = await kana(["list", "--kubeconfig", kubeconfig]);
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(
        'kana: Error from server (Forbidden): networkclaims.kana.kubekit.io is forbidden: User "nobody" cannot list resource "networkclaims" in API group "kana.kubekit.io" at the cluster scope\n',
      );
    } finally {
      await test.close();
    }
  });
});

describe("kana arbiter", { timeout: 60_000 }, () => {
  it("decides claims until SIGTERM, then exits 0", async () => {
    const plane = await startKanaPlane();
    const kubeconfig = file("arbiter.kubeconfig");
    await writeFile(kubeconfig, kubeconfigFor([{ name: "arbiter", server: plane.url }], "arbiter"));
    const running = startKana(["arbiter", "--kubeconfig", kubeconfig, "--no-leader-elect"]);
    try {
      await eventually("the arbiter to start", () =>
        running.stderr().includes("kana arbiter: deciding NetworkClaims") ? true : undefined,
      );
      const claimed = await kana([
        "claim",
        "--name",
        "cluster-services",
        "--prefix",
        "10.96.0.0/16",
        "--resource",
        "services",
        "--kubeconfig",
        kubeconfig,
      ]);
      expect(claimed.code).toBe(0);
      running.child.kill("SIGTERM");
      expect(await running.exited).toBe(0);
    } finally {
      running.child.kill("SIGKILL");
      await plane.close();
    }
  });
});

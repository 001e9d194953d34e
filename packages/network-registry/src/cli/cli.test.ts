import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

/** These tests run the built `kana` binary (dist/cli.js) as a user would. */
const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kana(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const CLUSTER_A = `
apiVersion: kana.kubekit.io/v1alpha1
kind: NetworkClaim
metadata:
  name: kube-apiserver
spec:
  addressSpace:
    - reference: { group: "", resource: services }
      prefix: 10.96.0.0/16
    - reference: { group: "", resource: services }
      prefix: fd00:10:96::/112
---
apiVersion: kana.kubekit.io/v1alpha1
kind: NetworkClaim
metadata:
  name: kube-controller-manager
spec:
  addressSpace:
    - reference: { group: "", resource: pods }
      prefix: 10.64.0.0/10
    - reference: { group: "", resource: pods }
      prefix: 10.244.0.0/16
    - reference: { group: "", resource: services }
      prefix: 10.96.0.0/16
      status: unavailable
`;

const CLUSTER_B_DISJOINT = `
kind: NetworkClaimList
items:
  - metadata: { name: kube-apiserver }
    spec:
      addressSpace:
        - reference: { group: "", resource: services }
          prefix: 10.32.0.0/16
  - metadata: { name: kube-controller-manager }
    spec:
      addressSpace:
        - reference: { group: "", resource: pods }
          prefix: 10.16.0.0/12
`;

const CLUSTER_C_OVERLAPPING = `
metadata: { name: kube-controller-manager }
spec:
  addressSpace:
    - reference: { group: "", resource: pods }
      prefix: 10.244.128.0/17
    - reference: { group: "", resource: pods }
      prefix: 100.64.0.0/16
`;

const MIXED = `
metadata: { name: first }
spec:
  addressSpace:
    - reference: { group: "", resource: pods }
      prefix: 10.0.0.1/24
    - reference: { group: "", resource: pods }
      prefix: 10.1/16
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings }
data: { x: y }
---
- just a string
---
metadata: { name: second }
spec:
  addressSpace:
    - reference: { group: "", resource: pods }
      prefix: 010.0.0.0/8
`;

let dir = "";
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kana-cli-"));
  await writeFile(file("cluster-a.yaml"), CLUSTER_A);
  await writeFile(file("cluster-b.yaml"), CLUSTER_B_DISJOINT);
  await writeFile(file("cluster-c.yaml"), CLUSTER_C_OVERLAPPING);
  await writeFile(file("mixed.yaml"), MIXED);
  await writeFile(
    file("broken.yaml"),
    "metadata: { name: x }\nspec:\n  addressSpace:\n    - reference: { group: '', resource: pods }\n      prefix: 10.0.0.1/24\n",
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("kana check", () => {
  it("passes a consistent plan from two clusters (exit 0)", async () => {
    const run = await kana("check", file("cluster-a.yaml"), file("cluster-b.yaml"));
    expect(run.stderr).toBe("");
    expect(run.stdout).not.toMatch(/^\s+warning\s/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("cluster-a.kube-apiserver");
    expect(run.stdout).toContain("cluster-b.kube-controller-manager");
    expect(run.stdout).toContain("OK: no conflicts");
  });

  it("prints conflicts across clusters and exits 1", async () => {
    const run = await kana("check", file("cluster-a.yaml"), file("cluster-c.yaml"));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /CONFLICT\s+10\.244\.128\.0\/17.*is inside 10\.244\.0\.0\/16 allocated to cluster-a\.kube-controller-manager/,
    );
    expect(run.stdout).toContain("Shared Address Space");
    expect(run.stdout).toContain("FAIL");
  });

  it("writes JSON and YAML with the same content", async () => {
    const json = await kana("check", file("cluster-a.yaml"), file("cluster-c.yaml"), "-o", "json");
    const yaml = await kana("check", file("cluster-a.yaml"), file("cluster-c.yaml"), "-o", "yaml");
    expect(json.code).toBe(1);
    expect(yaml.code).toBe(1);
    const fromJson = JSON.parse(json.stdout) as {
      ok: boolean;
      summary: { conflicts: number; warnings: number };
      conflicts: { claim: string; prefix: string; conflict: { relation: string; claim: string; prefix: string } }[];
    };
    expect(fromJson.ok).toBe(false);
    expect(fromJson.summary).toMatchObject({ conflicts: 1, warnings: 1 });
    expect(fromJson.conflicts[0]).toMatchObject({
      claim: "cluster-c.kube-controller-manager",
      prefix: "10.244.128.0/17",
      conflict: { reason: "Overlap", relation: "inside", claim: "cluster-a.kube-controller-manager", prefix: "10.244.0.0/16" },
    });
    const fromYaml = parse(yaml.stdout) as typeof fromJson & { claims: { status: { addressSpace: { date: string }[] } }[] };
    expect(fromYaml.summary).toEqual(fromJson.summary);
    expect(fromYaml.conflicts).toEqual(fromJson.conflicts);
  });

  it("reports invalid claims with the parse rule and its fix", async () => {
    const run = await kana("check", file("broken.yaml"));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("10.0.0.1/24 has host bits set; did you mean 10.0.0.0/24?");
  });

  it("reports every invalid record and skips documents that are not claims, with a note", async () => {
    const run = await kana("check", file("mixed.yaml"));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("10.0.0.1/24 has host bits set; did you mean 10.0.0.0/24?");
    expect(run.stdout).toContain("did you mean 10.1.0.0/16?");
    expect(run.stdout).toContain("did you mean 10.0.0.0/8?");
    expect(run.stdout).toMatch(/note\s+skipped document 2 of .*mixed\.yaml: v1 ConfigMap settings is not a NetworkClaim/);
    expect(run.stdout).toMatch(/INVALID\s+document 3 item 1 of .*mixed\.yaml: expected a NetworkClaim object, got "just a string"/);
    expect(run.stdout).toContain("3 invalid claims");
    const json = JSON.parse((await kana("check", file("mixed.yaml"), "-o", "json")).stdout) as { errors: unknown[]; skipped: string[] };
    expect(json.errors).toHaveLength(3);
    expect(json.skipped).toHaveLength(1);
  });

  it("gives the same verdict for any document order (a delegation listed before its parent)", async () => {
    const child =
      "metadata: { name: cluster-1 }\nspec:\n  addressSpace:\n    - reference: { group: '', resource: pods }\n      prefix: 10.1.0.0/16\n      parent: { claim: platform, prefix: 10.0.0.0/8 }\n";
    const parent =
      "metadata: { name: platform }\nspec:\n  addressSpace:\n    - reference: { group: '', resource: pods }\n      prefix: 10.0.0.0/8\n      delegateTo: [cluster-1]\n";
    await writeFile(file("child-first.yaml"), `${child}---\n${parent}`);
    await writeFile(file("parent-first.yaml"), `${parent}---\n${child}`);
    for (const name of ["child-first.yaml", "parent-first.yaml"]) {
      const run = await kana("check", file(name));
      expect(run.code, name).toBe(0);
      expect(run.stdout).toContain("OK: no conflicts");
    }
  });

  it("exits 2 for unreadable files and bad usage", async () => {
    expect((await kana("check", file("missing.yaml"))).code).toBe(2);
    expect((await kana("check", file("cluster-a.yaml"), "-o", "xml")).code).toBe(2);
    expect((await kana("frobnicate")).code).toBe(2);
  });
});

describe("kana whois, allocate, free", () => {
  it("finds the owner of an address", async () => {
    const run = await kana("whois", "10.96.1.1", "-f", file("cluster-a.yaml"));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("owner     kube-apiserver (10.96.0.0/16)");
    const json = JSON.parse((await kana("whois", "fd00:10:96::1", "-f", file("cluster-a.yaml"), "-o", "json")).stdout) as {
      mostSpecific: { claim: string };
    };
    expect(json.mostSpecific.claim).toBe("kube-apiserver");
  });

  it("allocates the next free blocks from a pool", async () => {
    const run = await kana("allocate", "--from", "10.244.0.0/16", "--size", "24", "--count", "2", "-f", file("cluster-a.yaml"));
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual(["10.244.0.0/24", "10.244.1.0/24"]);
    const full = await kana("allocate", "--from", "10.244.0.0/16", "--size", "17", "--count", "3", "-f", file("cluster-a.yaml"));
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("only 2 of 3 /17 blocks are free in 10.244.0.0/16");
    expect(full.stderr).toContain("no free /17 left in 10.244.0.0/16");
    expect(full.stdout).toBe("");
  });

  it("rejects sizes and counts that are not plain numbers", async () => {
    for (const args of [
      ["--size", "24x"],
      ["--size", "24", "--count", "2.5"],
      ["--size", " 24"],
    ]) {
      const run = await kana("allocate", "--from", "10.244.0.0/16", ...args, "-f", file("cluster-a.yaml"));
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/--size must be a prefix length|--count must be a positive integer/);
    }
  });

  it("shows free space with the carve-out excluded", async () => {
    const run = await kana("free", "--from", "10.0.0.0/8", "-f", file("cluster-a.yaml"), "-o", "json");
    expect(run.code).toBe(0);
    const usage = JSON.parse(run.stdout) as { used: string; size: string; freeBlocks: string[] };
    expect(usage.size).toBe("16777216");
    expect(BigInt(usage.used)).toBe(2n ** 22n + 2n ** 16n);
    expect(usage.freeBlocks).toContain("10.0.0.0/10");
    const human = await kana("free", "--from", "10.64.0.0/10", "-f", file("cluster-a.yaml"));
    expect(human.stdout).toContain("used      65536 of 4194304 addresses (1.56%)");
    expect(human.stdout).not.toMatch(/^\s+10\.96\.0\.0\/16$/m);
  });
});

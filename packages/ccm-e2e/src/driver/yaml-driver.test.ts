import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isCcmE2eError } from "../errors.js";
import { DEFAULT_TIMEOUTS, resolveTimeouts } from "./timeouts.js";
import { yamlDriver } from "./yaml-driver.js";

const node = { name: "node-1", providerID: "aws:///us-east-1a/i-0abc", addresses: [] };
const service = { namespace: "ns", name: "web", uid: "1234-5678", loadBalancerName: "a12345678" };
// A program every machine running the suite has: this Node binary.
const NODE = JSON.stringify(process.execPath);

function expectInvalid(text: string, message: string): void {
  let caught: unknown;
  try {
    yamlDriver(text, { kubeconfig: "/kc", source: "driver.yaml" });
  } catch (error) {
    caught = error;
  }
  expect(isCcmE2eError(caught, "invalid-driver"), String(caught)).toBe(true);
  expect((caught as Error).message).toContain(message);
}

describe("yamlDriver validation", () => {
  it("names an unknown top-level field with its path", () => {
    expectInvalid("name: x\ncapabilities: {}\nhook: {}\n", 'driver.yaml: hook: unknown field "hook"');
  });

  it("names an unknown capability with its path (a typo must not skip tests silently)", () => {
    expectInvalid("name: x\ncapabilities:\n  loadBalancer: true\n  udpp: true\n", 'driver.yaml: capabilities.udpp: unknown field "udpp"');
  });

  it("names an unknown hook and a mistyped value", () => {
    expectInvalid("name: x\ncapabilities: {}\nhooks:\n  deleteInstanse: [rm]\n", 'hooks.deleteInstanse: unknown field "deleteInstanse"');
    expectInvalid("name: x\ncapabilities:\n  udp: yes please\n", "capabilities.udp: Invalid input: expected boolean");
  });

  it("reads how to ask for an internal load balancer, and names a bad CIDR in it", () => {
    const driver = yamlDriver(
      "name: x\ncapabilities:\n  internalLoadBalancer: true\ninternalLoadBalancer:\n  annotations:\n    networking.gke.io/load-balancer-type: Internal\n  ingressCIDRs: [10.128.0.0/9]\n",
      { kubeconfig: "/kc" },
    );
    expect(driver.internalLoadBalancer).toEqual({
      annotations: { "networking.gke.io/load-balancer-type": "Internal" },
      ingressCIDRs: ["10.128.0.0/9"],
    });
    expectInvalid(
      "name: x\ncapabilities: {}\ninternalLoadBalancer:\n  annotations: {a: b}\n  ingressCIDRs: [10.0.0.0]\n",
      "driver.yaml: internalLoadBalancer.ingressCIDRs[0]:",
    );
    expectInvalid(
      "name: x\ncapabilities: {}\ninternalLoadBalancer:\n  annotations: {}\n",
      "internalLoadBalancer.annotations: must name at least one annotation",
    );
  });

  it("rejects an unknown template variable at load time, naming the argument", () => {
    expectInvalid(
      'name: x\ncapabilities: {}\nhooks:\n  deleteInstance: [aws, ec2, terminate-instances, --instance-ids, "{{.providerId}}"]\n',
      'driver.yaml: hooks.deleteInstance[4]: unknown template variable ".providerId" (this hook has .kubeconfig, .nodeName, .providerID)',
    );
    expectInvalid('name: x\ncapabilities: {}\nhooks:\n  setup: ["{{ providerID }}"]\n', "hooks.setup[0]: malformed template");
  });

  it("reads Go durations for timeouts and rejects bad ones", () => {
    const driver = yamlDriver("name: x\ncapabilities: {}\ntimeouts:\n  lbCreate: 90s\n  nodeDeleted: 1m30s\ntimeoutScale: 0.5\n", {
      kubeconfig: "/kc",
    });
    const timeouts = resolveTimeouts(driver);
    expect(timeouts.lbCreate).toBe(90_000);
    expect(timeouts.nodeDeleted).toBe(90_000);
    expect(timeouts.lbLag).toBe(DEFAULT_TIMEOUTS.lbLag / 2);
    expectInvalid("name: x\ncapabilities: {}\ntimeouts:\n  lbCreate: '5'\n", 'timeouts.lbCreate: time: missing unit in duration "5"');
    expectInvalid("name: x\ncapabilities: {}\ntimeouts:\n  lbCreate: 5\n", "timeouts.lbCreate: must be a Go duration such as 90s or 2m");
    expectInvalid("name: x\ncapabilities: {}\ntimeouts:\n  lbLagg: 5s\n", 'timeouts.lbLagg: unknown field "lbLagg"');
  });

  it("requires a name and capabilities", () => {
    expectInvalid("capabilities: {}\n", "name:");
    expectInvalid("name: x\n", "capabilities:");
  });
});

describe("yamlDriver hooks", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-yaml-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs a hook without a shell, one argument per template, with KUBECONFIG set", async () => {
    const out = join(dir, "args.json");
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ args: process.argv.slice(1), kc: process.env.KUBECONFIG }))`;
    const driver = yamlDriver(
      `name: x\ncapabilities: {}\nhooks:\n  deleteInstance: [${NODE}, "-e", ${JSON.stringify(script)}, "--", "{{.providerID}}", "id={{.nodeName}} $(x)"]\n`,
      { kubeconfig: "/path/kc" },
    );
    await driver.deleteInstance!(node);
    expect(JSON.parse(await readFile(out, "utf8"))).toEqual({ args: ["aws:///us-east-1a/i-0abc", "id=node-1 $(x)"], kc: "/path/kc" });
  });

  it("reports a failing command with its exit status and stderr", async () => {
    const driver = yamlDriver(
      `name: x\ncapabilities: {}\nhooks:\n  rebootInstance: [${NODE}, "-e", "console.error('no such instance {{.mode}}'); process.exit(3)"]\n`,
      {
        kubeconfig: "/kc",
      },
    );
    await expect(driver.rebootInstance!(node, "hard")).rejects.toThrow(
      /x: hooks\.rebootInstance: .* exited with status 3: no such instance hard/,
    );
  });

  it("kills a command that outlives the hook timeout", async () => {
    const driver = yamlDriver(
      `name: x\ncapabilities: {}\ntimeouts: { hook: 200ms }\nhooks:\n  stopInstance: [${NODE}, "-e", "setTimeout(() => {}, 60000)"]\n`,
      { kubeconfig: "/kc" },
    );
    await expect(driver.stopInstance!(node)).rejects.toThrow(/did not finish within 200 ms/);
  });

  it("reads instanceExists as true or false and nothing else", async () => {
    const make = (printed: string) =>
      yamlDriver(
        `name: x\ncapabilities: {}\nhooks:\n  instanceExists: [${NODE}, "-e", "console.log(${JSON.stringify(printed).replaceAll('"', "'")})"]\n`,
        { kubeconfig: "/kc" },
      );
    await expect(make("true").instanceExists!(node)).resolves.toBe(true);
    await expect(make("false").instanceExists!(node)).resolves.toBe(false);
    await expect(make("yes").instanceExists!(node)).rejects.toThrow('hooks.instanceExists must print true or false, printed "yes"');
  });

  it("reads getLoadBalancer as JSON checked strictly, null meaning none", async () => {
    const lb = {
      ingress: [{ ip: "127.0.0.9" }],
      ports: [{ port: 80, protocol: "TCP", nodePort: 30080 }],
      backendNodes: ["node-1"],
      sessionAffinity: "None",
    };
    const make = (value: unknown) =>
      yamlDriver(
        `name: x\ncapabilities: {}\nhooks:\n  getLoadBalancer: [${NODE}, "-e", ${JSON.stringify(`console.log(${JSON.stringify(JSON.stringify(value))})`)}]\n`,
        { kubeconfig: "/kc" },
      );
    await expect(make(lb).getLoadBalancer!(service)).resolves.toEqual(lb);
    await expect(make(null).getLoadBalancer!(service)).resolves.toBeUndefined();
    await expect(make({ ...lb, affinity: "x" }).getLoadBalancer!(service)).rejects.toThrow(
      'getLoadBalancer output: affinity: unknown field "affinity"',
    );
  });

  it("gives the service variables to load balancer hooks", async () => {
    const out = join(dir, "svc.txt");
    const driver = yamlDriver(
      `name: x\ncapabilities: {}\nhooks:\n  cleanupServiceResources: [${NODE}, "-e", "require('fs').writeFileSync(process.argv[1], process.argv.slice(2).join(' '))", ${JSON.stringify(out)}, "{{.namespace}}/{{.serviceName}}", "{{.serviceUID}}", "{{.loadBalancerName}}"]\n`,
      { kubeconfig: "/kc" },
    );
    await driver.cleanupServiceResources!(service);
    expect(await readFile(out, "utf8")).toBe("ns/web 1234-5678 a12345678");
  });
  it("gives the upgrade hooks the target version (and a downgrade the part), under the upgrade timeout", async () => {
    const out = join(dir, "upgrade.txt");
    const append = `require('fs').appendFileSync(process.argv[1], process.argv.slice(2).join(' ') + ';')`;
    const driver = yamlDriver(
      `name: x\ncapabilities: { controlPlaneUpgrade: true, nodeUpgrade: true, downgrade: true }\ntimeouts: { hook: 1ms }\nhooks:\n` +
        `  upgradeControlPlane: [${NODE}, "-e", ${JSON.stringify(append)}, ${JSON.stringify(out)}, cp, "{{.version}}"]\n` +
        `  upgradeNodes: [${NODE}, "-e", ${JSON.stringify(append)}, ${JSON.stringify(out)}, nodes, "{{.version}}"]\n` +
        `  downgrade: [${NODE}, "-e", ${JSON.stringify(append)}, ${JSON.stringify(out)}, down, "{{.part}}", "{{.version}}"]\n`,
      { kubeconfig: "/kc" },
    );
    await driver.upgradeControlPlane!("1.33.1");
    await driver.upgradeNodes!("1.33.1");
    await driver.downgrade!("1.31.0", "nodes");
    await driver.downgrade!("1.31.0", "controlPlane");
    expect(await readFile(out, "utf8")).toBe("cp 1.33.1;nodes 1.33.1;down nodes 1.31.0;down controlPlane 1.31.0;");
    expect(() =>
      yamlDriver(`name: x\ncapabilities: {}\nhooks:\n  upgradeNodes: [x, "{{.part}}"]\n`, { kubeconfig: "/kc", source: "d.yaml" }),
    ).toThrow('d.yaml: hooks.upgradeNodes[1]: unknown template variable ".part" (this hook has .kubeconfig, .version)');
  });
});

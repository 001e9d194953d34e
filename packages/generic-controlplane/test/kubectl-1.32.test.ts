import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeHttp, jsonPatch } from "./harness/http.js";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  data?: Record<string, string>;
  type?: string;
  status?: { phase?: string };
  secrets?: { name: string }[];
  items?: Obj[];
}

let server: TestServer;
let kubectl: Kubectl;
let http: KubeHttp;

beforeAll(async () => {
  const binary = findKubectl132();
  server = await startInProcess();
  kubectl = new Kubectl(binary, server);
  http = new KubeHttp(server.url);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

function manifest(path: string, text: string): string {
  const file = join(server.dir, path);
  writeFileSync(file, text);
  return file;
}

/** PATCH requests on configmaps the server has answered, from its `apiserver_request_total` counter. */
async function configMapPatches(): Promise<number> {
  const metrics = await http.request("GET", "/metrics", { accept: "text/plain" });
  let total = 0;
  for (const line of metrics.text.split("\n")) {
    if (line.startsWith("apiserver_request_total{") && line.includes('verb="PATCH"') && line.includes('resource="configmaps"')) {
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

/** Open watches on configmaps, from the server's `apiserver_registered_watchers` gauge. */
async function registeredConfigMapWatchers(): Promise<number> {
  const metrics = await http.request("GET", "/metrics", { accept: "text/plain" });
  const line = metrics.text.split("\n").find((l) => l.startsWith("apiserver_registered_watchers{") && l.includes('kind="ConfigMap"'));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

async function namespace(name: string): Promise<string> {
  await kubectl.ok(["create", "namespace", name]);
  return name;
}

describe("kubectl 1.32", { timeout: 60_000 }, () => {
  it("version prints the client and the server version", async () => {
    const out = await kubectl.ok(["version"]);
    const server = (await http.get<{ gitVersion: string }>("/version")).body;
    expect(out).toMatch(/^Client Version: v1\.32\./m);
    expect(out).toContain(`Server Version: ${server.gitVersion}`);
    const json = await kubectl.json<{ serverVersion: { major: string; minor: string } }>(["version"]);
    expect(Number.parseInt(json.serverVersion.major, 10)).toBeGreaterThan(0);
    expect(json.serverVersion.minor).toMatch(/^\d+\+?$/);
  });

  it("cluster-info names the missing services type, and config view gives the control plane's URL", async () => {
    // A generic control plane serves no Services (README, "How it maps onto KEP-4080").
    const info = await kubectl.run(["cluster-info"]);
    expect(info.code).toBe(1);
    expect(info.stderr).toContain('the server doesn\'t have a resource type "services"');
    expect(info.stdout).toContain("kubectl cluster-info dump");
    expect(await kubectl.ok(["config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"])).toBe(server.url);
  });

  it("api-versions lists v1 and the served groups", async () => {
    const versions = (await kubectl.ok(["api-versions"])).trim().split("\n");
    expect(versions).toContain("v1");
    expect(versions).toContain("coordination.k8s.io/v1");
    expect(versions).toContain("events.k8s.io/v1");
  });

  it("api-resources lists every built-in resource with its short names and scope", async () => {
    const { header, rows } = parseTable(await kubectl.ok(["api-resources"]));
    expect(header).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    // SHORTNAMES may be empty, which drops that cell; key rows by name and API version.
    const byName = new Map(rows.map((row) => [`${row[0]} ${row.find((cell) => /(^|\/)v1$/.test(cell))}`, row]));
    expect(byName.get("configmaps v1")).toEqual(["configmaps", "cm", "v1", "true", "ConfigMap"]);
    expect(byName.get("namespaces v1")).toEqual(["namespaces", "ns", "v1", "false", "Namespace"]);
    expect(byName.get("secrets v1")).toEqual(["secrets", "v1", "true", "Secret"]);
    expect(byName.get("serviceaccounts v1")).toEqual(["serviceaccounts", "sa", "v1", "true", "ServiceAccount"]);
    expect(byName.get("events v1")).toEqual(["events", "ev", "v1", "true", "Event"]);
    expect(byName.get("events events.k8s.io/v1")).toEqual(["events", "ev", "events.k8s.io/v1", "true", "Event"]);
    expect(byName.get("leases coordination.k8s.io/v1")).toEqual(["leases", "coordination.k8s.io/v1", "true", "Lease"]);
  });

  it("get --raw reads the health and metrics endpoints", async () => {
    expect(await kubectl.ok(["get", "--raw", "/healthz"])).toBe("ok");
    expect(await kubectl.ok(["get", "--raw", "/livez"])).toBe("ok");
    const readyz = await kubectl.ok(["get", "--raw", "/readyz?verbose"]);
    expect(readyz).toMatch(/^\[\+\]ping ok$/m);
    expect(readyz.trim().split("\n").at(-1)).toBe("readyz check passed");
    const metrics = await kubectl.ok(["get", "--raw", "/metrics"]);
    expect(metrics).toMatch(/^# TYPE apiserver_request_total counter$/m);
    expect(metrics).toMatch(/^# TYPE apiserver_request_duration_seconds histogram$/m);
  });

  it("explain configmap.data prints the field's type and description", async () => {
    const out = await kubectl.ok(["explain", "configmap.data"]);
    expect(out).toMatch(/^KIND:\s+ConfigMap$/m);
    expect(out).toMatch(/^VERSION:\s+v1$/m);
    expect(out).toMatch(/^FIELD:\s+data\s+<map\[string\]string>$/m);
    const description = out.split(/^DESCRIPTION:$/m)[1] ?? "";
    expect(description.trim().length).toBeGreaterThan(20);
  });

  it("create namespace, configmap --from-literal, secret generic and serviceaccount", async () => {
    expect(await kubectl.ok(["create", "namespace", "create-ns"])).toBe("namespace/create-ns created\n");
    const ns = await kubectl.json<Obj>(["get", "namespace", "create-ns"]);
    expect(ns.status?.phase).toBe("Active");

    expect(
      await kubectl.ok(["create", "configmap", "settings", "-n", "create-ns", "--from-literal=mode=fast", "--from-literal=level=3"]),
    ).toBe("configmap/settings created\n");
    const cm = await kubectl.json<Obj>(["get", "configmap", "settings", "-n", "create-ns"]);
    expect(cm.data).toEqual({ mode: "fast", level: "3" });

    expect(await kubectl.ok(["create", "secret", "generic", "creds", "-n", "create-ns", "--from-literal=password=hunter2"])).toBe(
      "secret/creds created\n",
    );
    const secret = await kubectl.json<Obj>(["get", "secret", "creds", "-n", "create-ns"]);
    expect(secret.type).toBe("Opaque");
    expect(secret.data).toEqual({ password: Buffer.from("hunter2").toString("base64") });

    expect(await kubectl.ok(["create", "serviceaccount", "robot", "-n", "create-ns"])).toBe("serviceaccount/robot created\n");
    const sa = await kubectl.json<Obj>(["get", "serviceaccount", "robot", "-n", "create-ns"]);
    expect(sa.metadata.name).toBe("robot");

    const again = await kubectl.run(["create", "configmap", "settings", "-n", "create-ns", "--from-literal=mode=slow"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('configmaps "settings" already exists');
  });

  it("apply -f creates, then leaves an unchanged object alone, then applies a change once", async () => {
    const ns = await namespace("apply-ns");
    const v1 = manifest(
      "apply-v1.yaml",
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ${ns}\n  labels:\n    tier: web\ndata:\n  mode: fast\n  retries: "3"\n`,
    );
    expect(await kubectl.ok(["apply", "-f", v1])).toBe("configmap/app created\n");
    const created = await kubectl.json<Obj>(["get", "cm", "app", "-n", ns]);
    expect(created.data).toEqual({ mode: "fast", retries: "3" });
    expect(created.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]).toBeDefined();

    const patchesBefore = await configMapPatches();
    expect(await kubectl.ok(["apply", "-f", v1])).toBe("configmap/app unchanged\n");
    expect(await configMapPatches()).toBe(patchesBefore);
    const afterNoop = await kubectl.json<Obj>(["get", "cm", "app", "-n", ns]);
    expect(afterNoop.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

    // A changed manifest: one key changed, one dropped (apply removes what it applied before), one added.
    const v2 = manifest(
      "apply-v2.yaml",
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ${ns}\n  labels:\n    tier: web\ndata:\n  mode: slow\n  timeout: 10s\n`,
    );
    expect(await kubectl.ok(["apply", "-f", v2])).toBe("configmap/app configured\n");
    expect(await configMapPatches()).toBe(patchesBefore + 1);
    const changed = await kubectl.json<Obj>(["get", "cm", "app", "-n", ns]);
    expect(changed.data).toEqual({ mode: "slow", timeout: "10s" });
    expect(changed.metadata.labels).toEqual({ tier: "web" });
    expect(Number(changed.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));

    expect(await kubectl.ok(["apply", "-f", v2])).toBe("configmap/app unchanged\n");
    expect(await configMapPatches()).toBe(patchesBefore + 1);
    const afterSecondNoop = await kubectl.json<Obj>(["get", "cm", "app", "-n", ns]);
    expect(afterSecondNoop.metadata.resourceVersion).toBe(changed.metadata.resourceVersion);
  });

  describe("get", () => {
    let ns: string;
    beforeAll(async () => {
      ns = await namespace("get-ns");
      await kubectl.ok(["create", "configmap", "web-1", "-n", ns, "--from-literal=a=1", "--from-literal=b=2"]);
      await kubectl.ok(["create", "configmap", "web-2", "-n", ns, "--from-literal=a=1"]);
      await kubectl.ok(["create", "configmap", "db-1", "-n", ns]);
      await kubectl.ok(["label", "configmap", "web-1", "web-2", "-n", ns, "tier=web"]);
      await kubectl.ok(["label", "configmap", "db-1", "-n", ns, "tier=db"]);
      await kubectl.ok(["create", "secret", "generic", "opaque-1", "-n", ns, "--from-literal=k=v"]);
      await kubectl.ok([
        "create",
        "secret",
        "docker-registry",
        "pull-1",
        "-n",
        ns,
        "--docker-server=r.example",
        "--docker-username=u",
        "--docker-password=p",
      ]);
    }, 60_000);

    it("prints a table with the printer columns", async () => {
      const { header, rows } = parseTable(await kubectl.ok(["get", "configmaps", "-n", ns]));
      expect(header).toEqual(["NAME", "DATA", "AGE"]);
      expect(rows.map((row) => row.slice(0, 2))).toEqual([
        ["db-1", "0"],
        ["web-1", "2"],
        ["web-2", "1"],
      ]);
      expect(rows[0]?.[2]).toMatch(/^\d+s$/);
      const secrets = parseTable(await kubectl.ok(["get", "secrets", "-n", ns]));
      expect(secrets.header).toEqual(["NAME", "TYPE", "DATA", "AGE"]);
      expect(secrets.rows.map((row) => row.slice(0, 3))).toEqual([
        ["opaque-1", "Opaque", "1"],
        ["pull-1", "kubernetes.io/dockerconfigjson", "1"],
      ]);
    });

    it("-o yaml and -o json print the stored object", async () => {
      const yaml = parseYaml(await kubectl.ok(["get", "configmap", "web-1", "-n", ns, "-o", "yaml"])) as Obj;
      expect(yaml.kind).toBe("ConfigMap");
      expect(yaml.apiVersion).toBe("v1");
      expect(yaml.data).toEqual({ a: "1", b: "2" });
      expect(yaml.metadata.labels).toEqual({ tier: "web" });
      const json = JSON.parse(await kubectl.ok(["get", "configmap", "web-1", "-n", ns, "-o", "json"])) as Obj;
      expect(json).toEqual(yaml);
      const list = await kubectl.json<Obj>(["get", "configmaps", "-n", ns]);
      expect(list.kind).toBe("List");
      expect(list.items?.map((item) => item.metadata.name)).toEqual(["db-1", "web-1", "web-2"]);
    });

    it("-o wide shows the wide columns and --show-labels the labels", async () => {
      const wide = parseTable(await kubectl.ok(["get", "configmaps", "-n", ns, "-o", "wide"]));
      expect(wide.header).toEqual(["NAME", "DATA", "AGE"]);
      expect(wide.rows).toHaveLength(3);
      const labelled = parseTable(await kubectl.ok(["get", "configmaps", "-n", ns, "--show-labels"]));
      expect(labelled.header).toEqual(["NAME", "DATA", "AGE", "LABELS"]);
      expect(labelled.rows.find((row) => row[0] === "db-1")?.[3]).toBe("tier=db");

      // Events have priority-1 columns that only -o wide shows.
      const event = await http.post(`/api/v1/namespaces/${ns}/events`, {
        metadata: { name: "web-1.restarted" },
        involvedObject: { kind: "ConfigMap", namespace: ns, name: "web-1" },
        reason: "Restarted",
        message: "configmap reloaded",
        type: "Normal",
        count: 3,
        source: { component: "tester" },
        firstTimestamp: "2024-01-01T00:00:00Z",
        lastTimestamp: "2024-01-01T00:05:00Z",
      });
      expect(event.status, event.text).toBe(201);
      const events = parseTable(await kubectl.ok(["get", "events", "-n", ns]));
      expect(events.header).toEqual(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
      expect(events.rows[0]?.slice(1)).toEqual(["Normal", "Restarted", "configmap/web-1", "configmap reloaded"]);
      const wideEvents = parseTable(await kubectl.ok(["get", "events", "-n", ns, "-o", "wide"]));
      expect(wideEvents.header).toEqual([
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
      ]);
      expect(wideEvents.rows[0]?.slice(-4)).toEqual(["configmap reloaded", expect.stringMatching(/^\d+[dhmsy]/), "3", "web-1.restarted"]);
      expect(wideEvents.rows[0]).toContain("tester");
    });

    it("-l filters by label selector", async () => {
      const names = async (selector: string) =>
        (await kubectl.ok(["get", "configmaps", "-n", ns, "-l", selector, "-o", "name"])).trim().split("\n").filter(Boolean);
      expect(await names("tier=web")).toEqual(["configmap/web-1", "configmap/web-2"]);
      expect(await names("tier!=web")).toEqual(["configmap/db-1"]);
      expect(await names("tier in (db,cache)")).toEqual(["configmap/db-1"]);
      expect(await names("tier,tier notin (web)")).toEqual(["configmap/db-1"]);
      expect(await names("!tier")).toEqual([]);
      const none = await kubectl.run(["get", "configmaps", "-n", ns, "-l", "tier=cache"]);
      expect(none.code).toBe(0);
      expect(none.stderr).toContain(`No resources found in ${ns} namespace.`);
    });

    it("--field-selector filters by metadata and type fields", async () => {
      const byName = await kubectl.ok(["get", "configmaps", "-n", ns, "--field-selector", "metadata.name=web-2", "-o", "name"]);
      expect(byName).toBe("configmap/web-2\n");
      const notName = await kubectl.ok(["get", "configmaps", "-n", ns, "--field-selector", "metadata.name!=web-2", "-o", "name"]);
      expect(notName).toBe("configmap/db-1\nconfigmap/web-1\n");
      const byType = await kubectl.ok([
        "get",
        "secrets",
        "-n",
        ns,
        "--field-selector",
        "type=kubernetes.io/dockerconfigjson",
        "-o",
        "name",
      ]);
      expect(byType).toBe("secret/pull-1\n");
      const unsupported = await kubectl.run(["get", "configmaps", "-n", ns, "--field-selector", "data.a=1"]);
      expect(unsupported.code).not.toBe(0);
      expect(unsupported.stderr).toContain("field label not supported: data.a");
    });

    it("-A lists across namespaces with a NAMESPACE column", async () => {
      await namespace("get-other-ns");
      await kubectl.ok(["create", "configmap", "elsewhere", "-n", "get-other-ns"]);
      const { header, rows } = parseTable(await kubectl.ok(["get", "configmaps", "-A"]));
      expect(header).toEqual(["NAMESPACE", "NAME", "DATA", "AGE"]);
      const pairs = rows.map((row) => `${row[0]}/${row[1]}`);
      expect(pairs).toEqual(expect.arrayContaining([`${ns}/db-1`, `${ns}/web-1`, `${ns}/web-2`, "get-other-ns/elsewhere"]));
      const chunked = parseTable(await kubectl.ok(["get", "configmaps", "-A", "--chunk-size=1"]));
      expect(chunked.rows.map((row) => `${row[0]}/${row[1]}`)).toEqual(pairs);
    });
  });

  it("label and annotate add, overwrite and remove keys", async () => {
    const ns = await namespace("label-ns");
    await kubectl.ok(["create", "configmap", "target", "-n", ns]);
    expect(await kubectl.ok(["label", "configmap", "target", "-n", ns, "app=demo", "tier=web"])).toBe("configmap/target labeled\n");
    const conflict = await kubectl.run(["label", "configmap", "target", "-n", ns, "tier=db"]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain("'tier' already has a value (web), and --overwrite is false");
    await kubectl.ok(["label", "configmap", "target", "-n", ns, "tier=db", "--overwrite"]);
    await kubectl.ok(["label", "configmap", "target", "-n", ns, "app-"]);
    expect((await kubectl.json<Obj>(["get", "cm", "target", "-n", ns])).metadata.labels).toEqual({ tier: "db" });

    expect(await kubectl.ok(["annotate", "configmap", "target", "-n", ns, "owner=team-a", "note=first"])).toBe(
      "configmap/target annotated\n",
    );
    await kubectl.ok(["annotate", "configmap", "target", "-n", ns, "note=second", "--overwrite"]);
    await kubectl.ok(["annotate", "configmap", "target", "-n", ns, "owner-"]);
    expect((await kubectl.json<Obj>(["get", "cm", "target", "-n", ns])).metadata.annotations).toEqual({ note: "second" });
  });

  it("patch --type json, merge and strategic", async () => {
    const ns = await namespace("patch-ns");
    await kubectl.ok(["create", "configmap", "cfg", "-n", ns, "--from-literal=a=1", "--from-literal=b=2"]);
    expect(
      await kubectl.ok([
        "patch",
        "configmap",
        "cfg",
        "-n",
        ns,
        "--type",
        "json",
        "-p",
        '[{"op":"add","path":"/data/c","value":"3"},{"op":"remove","path":"/data/a"}]',
      ]),
    ).toBe("configmap/cfg patched\n");
    expect((await kubectl.json<Obj>(["get", "cm", "cfg", "-n", ns])).data).toEqual({ b: "2", c: "3" });
    const failedTest = await kubectl.run([
      "patch",
      "configmap",
      "cfg",
      "-n",
      ns,
      "--type",
      "json",
      "-p",
      '[{"op":"test","path":"/data/b","value":"9"}]',
    ]);
    expect(failedTest.code).not.toBe(0);

    await kubectl.ok(["patch", "configmap", "cfg", "-n", ns, "--type", "merge", "-p", '{"data":{"b":null,"d":"4"}}']);
    expect((await kubectl.json<Obj>(["get", "cm", "cfg", "-n", ns])).data).toEqual({ c: "3", d: "4" });

    // Strategic merge patch merges ServiceAccount.secrets by the `name` merge key; merge patch replaces the list.
    await kubectl.ok(["create", "serviceaccount", "robot", "-n", ns]);
    await kubectl.ok(["patch", "serviceaccount", "robot", "-n", ns, "--type", "merge", "-p", '{"secrets":[{"name":"one"}]}']);
    await kubectl.ok(["patch", "serviceaccount", "robot", "-n", ns, "--type", "strategic", "-p", '{"secrets":[{"name":"two"}]}']);
    expect((await kubectl.json<Obj>(["get", "sa", "robot", "-n", ns])).secrets).toEqual([{ name: "two" }, { name: "one" }]);
    await kubectl.ok(["patch", "serviceaccount", "robot", "-n", ns, "-p", '{"secrets":[{"name":"one","$patch":"delete"}]}']);
    expect((await kubectl.json<Obj>(["get", "sa", "robot", "-n", ns])).secrets).toEqual([{ name: "two" }]);
    await kubectl.ok(["patch", "serviceaccount", "robot", "-n", ns, "--type", "merge", "-p", '{"secrets":[{"name":"three"}]}']);
    expect((await kubectl.json<Obj>(["get", "sa", "robot", "-n", ns])).secrets).toEqual([{ name: "three" }]);
  });

  it("patch treats __proto__ and constructor as ordinary keys, leaving the server's Object.prototype alone", async () => {
    const ns = await namespace("proto-ns");
    await kubectl.ok(["create", "configmap", "x", "-n", ns, "--from-literal=a=1"]);
    // The reproduction from the review: a dry run that changed Object.prototype, failing other requests
    // with 500 until the process died. A top-level key ConfigMap lacks is an unknown field, whatever
    // its name: kubectl patch sends no fieldValidation, so the server warns and drops it.
    for (const type of ["merge", "strategic"]) {
      for (const dryRun of [["--dry-run=server"], []]) {
        const patched = await kubectl.run([
          "patch",
          "cm",
          "x",
          "-n",
          ns,
          `--type=${type}`,
          "-p",
          '{"__proto__":{"polluted":"yes"}}',
          ...dryRun,
        ]);
        expect(patched.code, patched.stderr).toBe(0);
        expect(patched.stderr).toContain('unknown field "__proto__"');
        expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      }
    }
    await kubectl.ok(["patch", "cm", "x", "-n", ns, "--type=merge", "-p", '{"data":{"__proto__":"p","constructor":"c"}}']);
    await kubectl.ok(["patch", "cm", "x", "-n", ns, "--type=json", "-p", '[{"op":"add","path":"/data/toString","value":"t"}]']);
    const data = JSON.parse(await kubectl.ok(["get", "cm", "x", "-n", ns, "-o", "jsonpath={.data}"])) as Record<string, string>;
    expect(Object.entries(data).sort()).toEqual([
      ["__proto__", "p"],
      ["a", "1"],
      ["constructor", "c"],
      ["toString", "t"],
    ]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("replace -f writes the whole object and rejects a stale resourceVersion", async () => {
    const ns = await namespace("replace-ns");
    await kubectl.ok(["create", "configmap", "whole", "-n", ns, "--from-literal=a=1"]);
    const current = await kubectl.json<Obj>(["get", "cm", "whole", "-n", ns]);
    const file = manifest("replace.json", JSON.stringify({ ...current, data: { z: "26" } }));
    expect(await kubectl.ok(["replace", "-f", file])).toBe("configmap/whole replaced\n");
    expect((await kubectl.json<Obj>(["get", "cm", "whole", "-n", ns])).data).toEqual({ z: "26" });

    // The file still carries the old resourceVersion: optimistic concurrency refuses it.
    const stale = await kubectl.run(["replace", "-f", file]);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('Operation cannot be fulfilled on configmaps "whole": the object has been modified');
  });

  it("delete removes objects, and --wait blocks until finalizers are gone", async () => {
    const ns = await namespace("delete-ns");
    await kubectl.ok(["create", "configmap", "gone", "-n", ns]);
    expect(await kubectl.ok(["delete", "configmap", "gone", "-n", ns])).toBe('configmap "gone" deleted\n');
    const missing = await kubectl.run(["get", "configmap", "gone", "-n", ns]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('configmaps "gone" not found');

    const held = await http.post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    });
    expect(held.status).toBe(201);
    const deleting = kubectl.stream(["delete", "configmap", "held", "-n", ns, "--wait=true", "--timeout=30s"]);
    try {
      await waitUntil(
        async () => (await http.get<Obj>(`/api/v1/namespaces/${ns}/configmaps/held`)).body.metadata.deletionTimestamp !== undefined,
      );
      // kubectl waits for the deletion with a watch; once it is registered, kubectl has seen the
      // object still held by its finalizer and must still be waiting.
      await waitUntil(async () => (await registeredConfigMapWatchers()) > 0);
      expect(deleting.child.exitCode).toBeNull();
      const released = await http.patch(
        `/api/v1/namespaces/${ns}/configmaps/held`,
        [{ op: "remove", path: "/metadata/finalizers" }],
        jsonPatch,
      );
      expect(released.status).toBe(200);
      await deleting.waitFor((out) => out.includes('configmap "held" deleted'), 20_000);
      await new Promise<void>((resolve) => (deleting.child.exitCode === null ? deleting.child.once("exit", () => resolve()) : resolve()));
      expect(deleting.child.exitCode).toBe(0);
    } finally {
      await deleting.stop();
    }
    expect((await http.get(`/api/v1/namespaces/${ns}/configmaps/held`)).status).toBe(404);
  });

  it("server-side dry-run and diff persist nothing", async () => {
    const ns = await namespace("dryrun-ns");
    const dry = await kubectl.json<Obj>(["create", "configmap", "dry", "-n", ns, "--from-literal=a=1", "--dry-run=server"]);
    expect(dry.metadata.name).toBe("dry");
    expect(dry.data).toEqual({ a: "1" });
    const missing = await kubectl.run(["get", "configmap", "dry", "-n", ns]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('configmaps "dry" not found');

    await kubectl.ok(["create", "configmap", "real", "-n", ns, "--from-literal=a=1"]);
    const before = await kubectl.json<Obj>(["get", "configmap", "real", "-n", ns]);
    const patched = await kubectl.json<Obj>([
      "patch",
      "configmap",
      "real",
      "-n",
      ns,
      "--type",
      "merge",
      "-p",
      '{"data":{"a":"2"}}',
      "--dry-run=server",
    ]);
    expect(patched.data).toEqual({ a: "2" });
    const after = await kubectl.json<Obj>(["get", "configmap", "real", "-n", ns]);
    expect(after.data).toEqual({ a: "1" });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    // kubectl diff asks the server for the would-be object (dry-run PATCH) and exits 1 on a difference.
    const file = manifest("diff.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: real\n  namespace: ${ns}\ndata:\n  a: "3"\n`);
    const diff = await kubectl.run(["diff", "-f", file], { timeoutMs: 30_000 });
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+a: "1"$/m);
    expect(diff.stdout).toMatch(/^\+\s+a: "3"$/m);
    expect((await kubectl.json<Obj>(["get", "configmap", "real", "-n", ns])).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });

  it("get -w prints events as they happen", async () => {
    const ns = await namespace("watch-ns");
    await kubectl.ok(["create", "configmap", "before", "-n", ns]);
    const watch = kubectl.stream(["get", "configmaps", "-n", ns, "-w", "--output-watch-events"]);
    try {
      await watch.waitFor((out) => /ADDED\s+before\s+0/.test(out));
      await kubectl.ok(["create", "configmap", "during", "-n", ns, "--from-literal=a=1"]);
      await watch.waitFor((out) => /ADDED\s+during\s+1/.test(out));
      await kubectl.ok(["patch", "configmap", "during", "-n", ns, "--type", "merge", "-p", '{"data":{"b":"2"}}']);
      await watch.waitFor((out) => /MODIFIED\s+during\s+2/.test(out));
      await kubectl.ok(["delete", "configmap", "during", "-n", ns]);
      await watch.waitFor((out) => /DELETED\s+during\s+2/.test(out));
      expect(watch.child.exitCode).toBeNull();
    } finally {
      await watch.stop();
    }
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

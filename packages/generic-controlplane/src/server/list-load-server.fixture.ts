/**
 * Child process for the LIST memory test and the bench: serves a control plane on a sqlite
 * database (argv[2]) holding `argv[3]` ConfigMaps in namespace `load`, then prints
 * `ready <url>`. A bearer token is taken as the user's name. Running in its own process keeps its RSS apart from the test runner's. Runs from
 * source (see run-from-source.ts). A `gc` line
 * on stdin collects garbage (with --expose-gc) and answers `gc <heap> <external>` (bytes in use)
 * once done, so a measurement starts from the live heap; a `peak` line answers
 * `peak <heap> <external>`, the most of each in use since. It exits when stdin closes, so it never outlives the process that started it.
 */
await import(new URL("../run-from-source.ts", import.meta.url).href);

(globalThis as { __PACKAGE_VERSION__?: string }).__PACKAGE_VERSION__ = "0.0.0-fixture";

const { createControlPlane } = await import("../control-plane.js");
const { createSqliteStorage } = await import("../storage/sqlite.js");

const [path, countArg] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: list-load-server.fixture.ts <db path> <count>");
const count = Number(countArg ?? "50000");

const storage = await createSqliteStorage({ path, compactInterval: 0 });
// "Authorization: Bearer <name>" names the user, so a test can be several clients; "admin" is in
// system:masters, which priority and fairness exempts (as kube-apiserver's loopback client).
const plane = await createControlPlane({
  storage,
  port: 0,
  host: "127.0.0.1",
  processMetrics: false,
  authenticate: (ctx) => {
    const bearer = /^Bearer (\S+)$/.exec(ctx.req.headers.authorization ?? "");
    if (bearer === null) return undefined;
    const name = bearer[1]!;
    return { name, groups: name === "admin" ? ["system:masters", "system:authenticated"] : ["system:authenticated"] };
  },
});
process.stdin.on("close", () => void plane.close().finally(() => process.exit(0)));
// The most V8 heap and the most external (Buffer) memory in use since the last `gc` line, sampled
// every 10 ms: what the server holds, without the allocator's slack that RSS also counts.
let peak = { heap: 0, external: 0 };
const sample = (): void => {
  const usage = process.memoryUsage();
  peak = { heap: Math.max(peak.heap, usage.heapUsed), external: Math.max(peak.external, usage.external) };
};
setInterval(sample, 10).unref();
process.stdin.on("data", (chunk: Buffer) => {
  for (const line of chunk.toString().split("\n")) {
    if (line === "gc") {
      globalThis.gc?.();
      const usage = process.memoryUsage();
      peak = { heap: usage.heapUsed, external: usage.external };
      process.stdout.write(`gc ${peak.heap} ${peak.external}\n`);
    } else if (line === "peak") {
      sample();
      process.stdout.write(`peak ${peak.heap} ${peak.external}\n`);
    }
  }
});

const ns = await fetch(`${plane.url}/api/v1/namespaces`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ metadata: { name: "load" } }),
});
if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${await ns.text()}`);

// One ConfigMap created through the API is the template; the rest are written straight to storage
// (same key layout and stored form, fresh name and uid), a thousand per group commit.
const template = await fetch(`${plane.url}/api/v1/namespaces/load/configmaps`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    metadata: { name: "cm-0", labels: { app: "load", tier: "bench" }, annotations: { note: "n".repeat(200) } },
    data: { payload: "x".repeat(1024), small: "value" },
  }),
});
if (template.status !== 201) throw new Error(`template: ${template.status} ${await template.text()}`);
const stored = await storage.get("/registry/configmaps/load/cm-0");
if (stored === undefined) throw new Error("template object not found in storage");
const value = JSON.parse(stored.value) as { metadata: { name: string; uid: string } };
for (let start = 1; start < count; start += 1000) {
  const writes: Array<Promise<unknown>> = [];
  for (let i = start; i < Math.min(count, start + 1000); i++) {
    value.metadata.name = `cm-${i}`;
    value.metadata.uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    writes.push(storage.create(`/registry/configmaps/load/cm-${i}`, JSON.stringify(value)));
  }
  await Promise.all(writes);
}
globalThis.gc?.();
process.stdout.write(`ready ${plane.url}\n`);

// `npm run bench:authorization -w @kubekit/generic-controlplane`: GET throughput of a user bound to
// view under RBAC (50 other bindings in the policy), next to the same server with AlwaysAllow,
// measured in the same run on memory and SQLite storage. Only 127.0.0.1; temp files are removed.
import { createControlPlane } from "../dist/index.js";
import { createSqliteStorage } from "../dist/storage/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const N = 4000,
  C = 16;
const users = {
  "Bearer admin": { name: "admin", groups: ["system:masters", "system:authenticated"] },
  "Bearer jane": { name: "jane", groups: ["system:authenticated"] },
};
async function measure(label, options) {
  const plane = await createControlPlane({
    processMetrics: false,
    enablePriorityAndFairness: false,
    authenticate: (ctx) => users[ctx.req.headers.authorization ?? ""],
    ...options,
  });
  const h = (who) => ({ authorization: `Bearer ${who}`, "content-type": "application/json" });
  await fetch(`${plane.url}/api/v1/namespaces/default/configmaps`, {
    method: "POST",
    headers: h("admin"),
    body: JSON.stringify({ metadata: { name: "c" } }),
  });
  if (options.authorization) {
    // A realistic policy: 50 namespaces' worth of bindings besides jane's.
    for (let i = 0; i < 50; i++)
      await fetch(`${plane.url}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
        method: "POST",
        headers: h("admin"),
        body: JSON.stringify({
          metadata: { name: `b${i}` },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
          subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: `u${i}` }],
        }),
      });
    await fetch(`${plane.url}/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings`, {
      method: "POST",
      headers: h("admin"),
      body: JSON.stringify({
        metadata: { name: "jane" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }],
      }),
    });
  }
  const url = `${plane.url}/api/v1/namespaces/default/configmaps/c`;
  for (let i = 0; i < 200; i++) if ((await fetch(url, { headers: h("jane") })).status !== 200) throw new Error("warmup");
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next++ < N) {
        const r = await fetch(url, { headers: h("jane") });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(String(r.status));
      }
    }),
  );
  const rate = N / ((performance.now() - start) / 1000);
  await plane.close();
  console.log(`${label}: ${rate.toFixed(0)} GET/s`);
  return rate;
}
for (const backend of ["memory", "sqlite"]) {
  const dir = mkdtempSync(join(tmpdir(), "rbac-bench-"));
  const storage = async () =>
    backend === "sqlite" ? { storage: await createSqliteStorage({ path: join(dir, `${Math.random()}.db`) }) } : {};
  const base = await measure(`${backend} AlwaysAllow`, { ...(await storage()) });
  const rbac = await measure(`${backend} RBAC`, { ...(await storage()), authorization: { modes: ["RBAC"] } });
  console.log(`${backend}: RBAC/AlwaysAllow = ${(rbac / base).toFixed(2)}`);
  rmSync(dir, { recursive: true, force: true });
}

import { createControlPlane, selectBuiltinResources } from "@kubekit/generic-controlplane";
import { writeFileSync } from "node:fs";
const plane = await createControlPlane({
  resources: [...selectBuiltinResources(), { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", singular: "deployment", scope: "Namespaced", statusSubresource: true,
    schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }],
  logger: (r) => { if (r.verb) console.error(JSON.stringify({v: r.verb, p: r.path, c: r.code, ua: r.userAgent})); },
});
writeFileSync("/tmp/probe.kubeconfig", plane.kubeconfig);
console.log("ready");
setTimeout(() => plane.close(), 20000);

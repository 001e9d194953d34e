import { stringify } from "yaml";

/**
 * A kubeconfig for a plain-HTTP server: one cluster, one (empty) user and one context, all named
 * `name`, with `namespace` as the context's default namespace.
 */
export function kubeconfigFor(url: string, name: string, namespace = "default"): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name, cluster: { server: url } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace } }],
    "current-context": name,
  });
}

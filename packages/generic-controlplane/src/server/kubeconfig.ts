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
    // client-node 2.x refuses plain http unless TLS verification is declared skipped; kubectl and python accept it.
    clusters: [{ name, cluster: url.startsWith("http://") ? { server: url, "insecure-skip-tls-verify": true } : { server: url } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace } }],
    "current-context": name,
  });
}

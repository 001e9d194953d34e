/**
 * `admissionregistration.k8s.io/v1` WebhookClientConfig and `apiextensions.k8s.io/v1`
 * WebhookClientConfig share this shape: where the webhook listens (`url`, or a Service resolved by
 * a ServiceResolver) and the CA bundle its serving certificate is verified against.
 */
export interface ServiceReference {
  namespace: string;
  name: string;
  /** URL path sent with every call; default `/`. */
  path?: string;
  /** Default 443. */
  port?: number;
}

export interface WebhookClientConfig {
  /** `https://host[:port]/path`; exactly one of `url` and `service`. */
  url?: string;
  service?: ServiceReference;
  /** Base64 of a PEM bundle (the JSON form of `[]byte`); without one the system roots are trusted. */
  caBundle?: string;
}

/**
 * Where a Service's webhook listens (k8s.io/apiserver's `webhook.ServiceResolver`). The control
 * plane serves no Services API, so the embedder decides: the default is the cluster DNS name
 * `https://<name>.<namespace>.svc:<port>`; tests and single-binary setups map services to local
 * addresses. Certificates are always verified for `<name>.<namespace>.svc`, as upstream does.
 */
export interface ServiceResolver {
  resolveEndpoint(namespace: string, name: string, port: number): URL | Promise<URL>;
}

export const defaultServiceResolver: ServiceResolver = {
  resolveEndpoint: (namespace, name, port) => new URL(`https://${name}.${namespace}.svc:${port}`),
};

/** A resolver over a fixed table, keyed `<namespace>/<name>:<port>`; unknown services fail like upstream's endpoint lookup. */
export function staticServiceResolver(endpoints: Record<string, string | URL>): ServiceResolver {
  return {
    resolveEndpoint(namespace, name, port) {
      const found = endpoints[`${namespace}/${name}:${port}`];
      if (found === undefined) throw new Error(`service "${name}" not found`);
      return new URL(found);
    },
  };
}

/** The TLS name a Service's serving certificate must carry (upstream `serviceName.namespace.svc`). */
export function serviceServerName(service: ServiceReference): string {
  return `${service.name}.${service.namespace}.svc`;
}

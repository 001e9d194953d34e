import { once } from "node:events";
import { createServer } from "node:http";

export interface HealthReport {
  namespace: string;
  name: string;
  /** Ready endpoints of the service on this node. */
  localEndpoints: number;
}

/**
 * kube-proxy's service health check server on a node's `healthCheckNodePort`: 200 while the node
 * has a ready endpoint of the service, else 503, with upstream's JSON body and headers, so a load
 * balancer sends `externalTrafficPolicy: Local` traffic only to nodes that can serve it.
 */
export async function startHealthCheckServer(
  ip: string,
  port: number,
  report: () => HealthReport | undefined,
): Promise<{ close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    const current = report() ?? { namespace: "", name: "", localEndpoints: 0 };
    response.setHeader("Content-Type", "application/json");
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("X-Load-Balancing-Endpoint-Weight", String(current.localEndpoints));
    response.statusCode = current.localEndpoints > 0 ? 200 : 503;
    response.end(
      `{\n\t"service": {\n\t\t"namespace": ${JSON.stringify(current.namespace)},\n\t\t"name": ${JSON.stringify(current.name)}\n\t},\n\t"localEndpoints": ${current.localEndpoints},\n\t"serviceProxyHealthy": true\n}`,
    );
  });
  server.listen({ host: ip, port, exclusive: true });
  await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error as Error))]);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

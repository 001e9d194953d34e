import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface ControllerEndpointsOptions {
  /** Served as Prometheus text at `/metrics`. */
  registry: Registry;
  /** 0 picks a free port. */
  port: number;
  bindAddress: string;
}

/** A controller process's plain-HTTP endpoints, started. */
export interface ControllerEndpoints {
  /** `http://<address>:<port>`, with the port actually bound. */
  url: string;
  /** Stops listening and drops open connections. */
  close(): void;
}

/**
 * Serves what kube-controller-manager serves beside its controllers: `/metrics` from `registry`
 * and the `/healthz`, `/livez` and `/readyz` probes; anything else is 404.
 */
export async function serveControllerEndpoints(options: ControllerEndpointsOptions): Promise<ControllerEndpoints> {
  const { registry } = options;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/metrics") {
      registry.metrics().then(
        (body) => {
          res.writeHead(200, { "Content-Type": registry.contentType });
          res.end(body);
        },
        (error: unknown) => {
          res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
          res.end(`${String(error)}\n`);
        },
      );
      return;
    }
    if (path === "/healthz" || path === "/livez" || path === "/readyz") {
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("ok");
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("404 page not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.bindAddress, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

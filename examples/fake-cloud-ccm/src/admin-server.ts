import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeCloud } from "./cloud/fake-cloud.js";
import { InstanceLookupError, InstanceNotFoundError } from "./cloud/instances.js";

export interface AdminServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The fake cloud's own API on 127.0.0.1, for drivers outside this process (the YAML driver's
 * commands call it through `fake-cloud-ctl`): instance actions and the load balancer view.
 *
 * - `POST /instances/{delete,stop,start,reboot}?providerID=…`
 * - `GET /instances/exists?providerID=…` → `true` / `false` (503 on a lookup error)
 * - `GET /loadbalancers/<name>` → the cloud's view as JSON, or `null`
 * - `DELETE /loadbalancers/<name>`
 * - `POST /upgrade/{control-plane,nodes}?version=…` (a downgrade too: the version is lower)
 */
export async function startAdminServer(cloud: FakeCloud): Promise<AdminServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://admin");
    const providerID = url.searchParams.get("providerID") ?? "";
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const lb = /^\/loadbalancers\/([^/]+)$/.exec(url.pathname);
      if (lb && req.method === "GET") return send(200, cloud.loadBalancers.get(decodeURIComponent(lb[1]!)) ?? null);
      if (lb && req.method === "DELETE")
        return send(200, await cloud.loadBalancers.delete(decodeURIComponent(lb[1]!)).then(() => "deleted"));
      if (url.pathname === "/instances/exists" && req.method === "GET") return send(200, cloud.instances.exists(providerID));
      const upgrade = /^\/upgrade\/(control-plane|nodes)$/.exec(url.pathname)?.[1];
      if (upgrade !== undefined && req.method === "POST") {
        if (cloud.upgrades === undefined) return send(501, "this fake cloud cannot upgrade its cluster");
        const version = url.searchParams.get("version") ?? "";
        await (upgrade === "nodes" ? cloud.upgrades.nodes(version) : cloud.upgrades.controlPlane(version));
        return send(200, "ok");
      }
      const action = /^\/instances\/(delete|stop|start|reboot)$/.exec(url.pathname)?.[1];
      if (action !== undefined && req.method === "POST") {
        if (action === "delete") await cloud.instances.delete(providerID);
        else if (action === "stop") await cloud.instances.stop(providerID);
        else if (action === "start") await cloud.instances.start(providerID);
        else await cloud.instances.reboot(providerID, Number(url.searchParams.get("downMs") ?? 3000));
        return send(200, "ok");
      }
      return send(404, `no route ${req.method} ${url.pathname}`);
    } catch (error) {
      const status = error instanceof InstanceNotFoundError ? 404 : error instanceof InstanceLookupError ? 503 : 500;
      return send(status, (error as Error).message);
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

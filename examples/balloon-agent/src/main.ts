import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { jsonLineLogger } from "@kubekit/generic-controlplane";
import { ControllerManager } from "@kubekit/generic-controlplane/controllers";
import { Registry } from "prom-client";
import { loadClients } from "./clients.js";
import { balloonAgentController } from "./controller.js";
import { agentManifestsYaml } from "./manifests.js";
import { AgentMetrics } from "./metrics.js";
import { parseOptions, UsageError, USAGE } from "./options.js";

async function main(): Promise<number> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.printManifests !== undefined) {
    process.stdout.write(agentManifestsYaml({ image: options.printManifests }));
    return 0;
  }
  const log = jsonLineLogger(process.stderr);
  const { client, core, server } = await loadClients(options.kubeconfig, options.context);
  log({ msg: "api server", server });
  const registry = new Registry();
  const metrics = new AgentMetrics(registry);
  const manager = new ControllerManager({
    client,
    controllers: ["balloon"],
    extraControllers: [
      balloonAgentController({
        core,
        metrics,
        onShortfall: options.onShortfall,
        resizeTimeoutMs: options.resizeTimeoutMs,
        retryAfterMs: options.retryAfterMs,
      }),
    ],
    leaderElection: options.leaderElect
      ? {
          namespace: options.leaseNamespace,
          name: options.leaseName,
          leaseDurationMs: options.leaseDurationMs,
          renewDeadlineMs: options.renewDeadlineMs,
          retryPeriodMs: options.retryPeriodMs,
        }
      : false,
    registry,
    logger: log,
  });

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/metrics") {
      void registry.metrics().then((body) => {
        res.writeHead(200, { "Content-Type": registry.contentType });
        res.end(body);
      });
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
    http.once("error", reject);
    http.listen(options.port, options.bindAddress, resolve);
  });
  const address = http.address() as AddressInfo;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  manager.start();
  log({ msg: "balloon agent started", metrics: `${url}/metrics`, leaderElect: options.leaderElect });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log({ msg: "second signal, exiting now", signal });
      process.exit(1);
    }
    stopping = true;
    log({ msg: "shutting down", signal });
    manager
      .stop()
      .then(() => {
        client.close();
        http.closeAllConnections();
        http.close();
        process.exit(0);
      })
      .catch((error: unknown) => {
        log({ level: "error", msg: "shutdown failed", error: String(error) });
        process.exit(1);
      });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.stdout.write(`ready ${url}\n`);
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

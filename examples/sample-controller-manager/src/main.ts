import { Registry } from "prom-client";
import { runCommand } from "@kubekit/generic-controlplane";
import { ControllerManager, KubeClient, loadKubeconfig, serveControllerEndpoints } from "@kubekit/generic-controlplane/controllers";
import { parseOptions, USAGE } from "./options.js";

runCommand({
  usage: USAGE,
  parse: parseOptions,
  async run(options, log) {
    const config = await loadKubeconfig(options.kubeconfig, options.context);
    const client = new KubeClient({ ...config, userAgent: "sample-controller-manager" });
    log({ msg: "api server", server: config.server });
    const registry = new Registry();
    const manager = new ControllerManager({
      client,
      controllers: options.controllers,
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
    const endpoints = await serveControllerEndpoints({ registry, port: options.port, bindAddress: options.bindAddress });
    manager.start();
    log({ msg: "controller manager started", controllers: manager.controllers, metrics: `${endpoints.url}/metrics` });
    process.stdout.write(`ready ${endpoints.url}\n`);
    return {
      async stop() {
        await manager.stop();
        client.close();
        endpoints.close();
      },
    };
  },
});

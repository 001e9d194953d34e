import { runCommand } from "@kubekit/generic-controlplane";
import { ControllerManager, serveControllerEndpoints } from "@kubekit/generic-controlplane/controllers";
import { Registry } from "prom-client";
import { loadClient } from "./clients.js";
import { balloonAgentController } from "./controller.js";
import { agentManifestsYaml } from "./manifests.js";
import { AgentMetrics } from "./metrics.js";
import { parseOptions, USAGE } from "./options.js";

runCommand({
  usage: USAGE,
  parse: parseOptions,
  async run(options, log) {
    if (options.printManifests !== undefined) {
      process.stdout.write(agentManifestsYaml({ image: options.printManifests }));
      return 0;
    }
    const { client, server } = await loadClient(options.kubeconfig, options.context);
    log({ msg: "api server", server });
    const registry = new Registry();
    const metrics = new AgentMetrics(registry, options.metricNodeLabels);
    const manager = new ControllerManager({
      client,
      controllers: ["balloon"],
      extraControllers: [
        balloonAgentController({
          client,
          metrics,
          owner: { name: options.balloonName, namespace: options.balloonNamespace },
          onShortfall: options.onShortfall,
          resizeTimeoutMs: options.resizeTimeoutMs,
          retryAfterMs: options.retryAfterMs,
          maxRetryAfterMs: options.maxRetryAfterMs,
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
    const endpoints = await serveControllerEndpoints({ registry, port: options.port, bindAddress: options.bindAddress });
    manager.start();
    log({ msg: "balloon agent started", metrics: `${endpoints.url}/metrics`, leaderElect: options.leaderElect });
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

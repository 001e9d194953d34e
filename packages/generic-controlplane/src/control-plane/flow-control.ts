import type { ResourceStore } from "../registry/types.js";
import type { ApiServer, ApiServerOptions } from "../server/api-server.js";
import { startFlowControlConfig } from "../server/flowcontrol/config-controller.js";
import { defaultFlowSchemas, defaultPriorityLevels } from "../server/flowcontrol/defaults.js";

/**
 * Puts the served FlowSchemas and PriorityLevelConfigurations in force and keeps them so (upstream's
 * APF configuration controller), when flow control is on and both types are served. Resolves to
 * the function that stops it.
 */
export async function startFlowControlObjects(
  server: ApiServer,
  stores: ReadonlyMap<string, ResourceStore>,
  configuration: {
    flowSchemas?: ApiServerOptions["flowSchemas"] | undefined;
    priorityLevels?: ApiServerOptions["priorityLevels"] | undefined;
  },
): Promise<(() => void) | undefined> {
  const flowSchemas = stores.get("flowschemas.flowcontrol.apiserver.k8s.io");
  const priorityLevels = stores.get("prioritylevelconfigurations.flowcontrol.apiserver.k8s.io");
  if (!server.flowControl || !flowSchemas || !priorityLevels) return undefined;
  return startFlowControlConfig(
    server.flowControl,
    { flowSchemas, priorityLevels },
    {
      flowSchemas: configuration.flowSchemas ?? defaultFlowSchemas(),
      priorityLevels: configuration.priorityLevels ?? defaultPriorityLevels(),
    },
  );
}

import type { Registry } from "prom-client";
import { KubeClient } from "../controllers/client.js";
import { ControllerManager, type ControllerManagerOptions } from "../controllers/manager.js";
import { badRequest } from "../api/errors/index.js";
import type { Logger } from "../server/logger.js";
import { inProcessTransport, type RequestHandler } from "../server/in-process-transport.js";
import type { LoopbackCredentials } from "./authentication.js";

/** Controller manager options for `createControlPlane` (client, metrics and logs are the control plane's). */
export type ControlPlaneControllers = Omit<ControllerManagerOptions, "client" | "registry" | "logger">;

/** Controllers run in-process and the loopback client they share. */
export interface InProcessControllers {
  manager: ControllerManager;
  loopback: KubeClient;
}

/**
 * Built-in controllers the default selection leaves out because what they work on is not served,
 * and `csrcleaner`, which a manager runs only when named, named when CSRs are served.
 */
function defaultlessControllers(serves: (groupResource: string) => boolean): string[] {
  const off: string[] = [];
  if (!serves("namespaces")) off.push("-namespace", "-serviceaccount");
  else if (!serves("serviceaccounts")) off.push("-serviceaccount");
  if (!serves("events")) off.push("-eventttl");
  if (!serves("resourcequotas")) off.push("-resourcequota");
  if (!serves("namespaces") || !serves("configmaps")) off.push("-root-ca-cert-publisher");
  if (!serves("certificatesigningrequests.certificates.k8s.io")) off.push("-csrsigning");
  else off.push("csrcleaner");
  return off;
}

/**
 * The controller manager against the server at `url`, like kube-controller-manager next to
 * kube-apiserver (not started yet); with `server` (the same server, in this process) its requests
 * go straight into `server.handle` instead of over a loopback connection, through every filter
 * with the same credentials. By default only the controllers whose resources are served,
 * and leader election only on a served Lease. An impossible selection (an unknown controller,
 * election without leases) is a BadRequest, and leaves nothing open.
 */
export function createControllers(
  chosen: ControlPlaneControllers,
  context: {
    url: string;
    server?: RequestHandler;
    loopback?: LoopbackCredentials;
    rootCA: string | undefined;
    serves: (groupResource: string) => boolean;
    registry: Registry;
    logger: Logger | undefined;
  },
): InProcessControllers {
  const { serves } = context;
  // The server's own loopback identity: controllers keep working when requests are authenticated.
  const credentials = context.loopback;
  const loopback = new KubeClient(
    {
      server: context.url,
      userAgent: "kube-controller-manager",
      ...(credentials ? { token: credentials.token } : {}),
      ...(credentials?.ca ? { ca: credentials.ca } : {}),
      ...(credentials?.serverName ? { tlsServerName: credentials.serverName } : {}),
    },
    // No socket, HTTP parser or framing per request: each dependent the garbage collector deletes costs one request.
    context.server === undefined ? {} : { transport: inProcessTransport(context.server) },
  );
  try {
    if (chosen.leaderElection !== false && chosen.leaderElection !== undefined && !serves("leases.coordination.k8s.io")) {
      throw new Error("leader election needs leases.coordination.k8s.io to be served");
    }
    const manager = new ControllerManager({
      // One API server over one store: nothing to wait for before emptying a deleted namespace.
      namespaceDeletionGracePeriodMs: 0,
      controllers: ["*", ...defaultlessControllers(serves)],
      ...(serves("leases.coordination.k8s.io") ? {} : { leaderElection: false as const }),
      ...(context.rootCA !== undefined ? { rootCA: context.rootCA } : {}),
      ...chosen,
      client: loopback,
      registry: context.registry,
      ...(context.logger !== undefined ? { logger: context.logger } : {}),
    });
    return { manager, loopback };
  } catch (error) {
    loopback.close();
    throw badRequest((error as Error).message, { cause: error });
  }
}

import { ControllerManager, KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { FakeCloud } from "../cloud/fake-cloud.js";
import type { Fault } from "../faults.js";
import { nodeLifecycleController } from "./node-lifecycle-controller.js";
import { serviceController } from "./service-controller.js";

export interface MiniCcmOptions {
  /** The API server (or a kubeconfig-derived client). */
  client: KubeClient;
  cloud: FakeCloud;
  /** `--node-monitor-period` of the lifecycle controller (upstream default 5 s). */
  nodeMonitorPeriodMs?: number;
  /** Build with one seeded defect (see `FAULTS`). */
  fault?: Fault;
}

/** A running mini CCM. */
export interface MiniCcm {
  stop(): Promise<void>;
}

/**
 * A cloud controller manager for the fake cloud: the service controller and the node lifecycle
 * controller, run by the control plane's controller manager (no leader election: one replica).
 */
export function startMiniCcm(options: MiniCcmOptions): MiniCcm {
  const manager = new ControllerManager({
    client: options.client,
    controllers: ["service", "cloud-node-lifecycle"],
    extraControllers: [
      serviceController(options.cloud, options.fault),
      nodeLifecycleController(options.cloud, {
        monitorPeriodMs: options.nodeMonitorPeriodMs ?? 5000,
        ...(options.fault === undefined ? {} : { fault: options.fault }),
      }),
    ],
    leaderElection: false,
  });
  manager.start();
  return { stop: () => manager.stop() };
}

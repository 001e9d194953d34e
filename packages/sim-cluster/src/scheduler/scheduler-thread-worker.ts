import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { KubeClient, createControllerContext, dropManagedFields } from "@kubekit/generic-controlplane/controllers";
import { forwardingLogger, toThreadError } from "../worker-threads.js";
import { scheduler } from "./scheduler.js";
import type { SchedulerThreadCall, SchedulerThreadData, SchedulerThreadMessage } from "./scheduler-thread.js";

// The worker thread of SchedulerWorker: the scheduler with informers and a client of its own.
const port = parentPort!;
const data = workerData as SchedulerThreadData;
const post = (message: SchedulerThreadMessage) => port.postMessage(message);

const client = new KubeClient({ server: data.server, userAgent: "sim-cluster-scheduler", token: data.token });
// As kube-scheduler's informers, without managed fields (nothing here reads them).
const context = createControllerContext(client, {
  informer: { transform: dropManagedFields },
  ...(data.log ? { logger: forwardingLogger((record) => post({ log: record })) } : {}),
});
const stop = new AbortController();
const running = scheduler()
  .run(context, stop.signal)
  .then(
    () => {
      if (!stop.signal.aborted) post({ failed: toThreadError(new Error("the scheduler returned before it was stopped")) });
    },
    (error: unknown) => post({ failed: toThreadError(error) }),
  );
context.informers.start();

port.on("message", (message: SchedulerThreadCall) => {
  if (message.call === "heapUsed") {
    (globalThis as { gc?: () => void }).gc?.();
    post({ id: message.id, heapUsed: getHeapStatistics().used_heap_size });
    return;
  }
  if (stop.signal.aborted) return;
  stop.abort();
  void running.then(async () => {
    await context.informers.stop();
    client.close();
    post({ stopped: true });
  });
});

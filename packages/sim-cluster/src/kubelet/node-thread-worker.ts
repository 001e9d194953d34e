import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { forwardingLogger, toThreadError } from "../worker-threads.js";
import { LocalKubelets } from "./kubelet-host.js";
import type { SimNodeSpec } from "./kubelet.js";
import type { NodeThreadCall, NodeThreadData, NodeThreadReply } from "./node-threads.js";

// A worker thread of NodeThreads: its kubelets answer the cluster's calls for the nodes it hosts.
const port = parentPort!;
const data = workerData as NodeThreadData;
const post = (reply: NodeThreadReply) => port.postMessage(reply);

const kubelets = new LocalKubelets({
  ...data,
  kubelet: {
    ...data.kubelet,
    ...(data.log ? { logger: forwardingLogger((record) => post({ log: record })) } : {}),
  },
});

/** This thread's heap in use, after a full collection when the process exposes one (`--expose-gc`). */
function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return getHeapStatistics().used_heap_size;
}

/** Runs a call; what it answers is a number (a measurement) or nothing. */
function run({ method, args }: NodeThreadCall): Promise<unknown> {
  switch (method) {
    case "heapUsed":
      return Promise.resolve(heapUsed());
    case "add":
      return kubelets.add(args[0] as SimNodeSpec, args[1] as string, args[2] as string);
    case "start":
      return kubelets.start(args[0] as string, args[1] as string, args[2] as string);
    case "stop":
      return kubelets.stop(args[0] as string);
    case "remove":
      return kubelets.remove(args[0] as string);
    case "reboot":
      return kubelets.reboot(args[0] as string);
    case "setCapacity":
      return kubelets.setCapacity(args[0] as string, args[1] as Record<string, string>);
    case "close":
      return kubelets.close();
  }
}

port.on("message", (call: NodeThreadCall) => {
  // A synchronous throw (an unknown node) answers as a rejection does.
  Promise.resolve()
    .then(() => run(call))
    .then(
      (value) => post({ id: call.id, ok: true, ...(typeof value === "number" ? { value } : {}) }),
      (error: unknown) => post({ id: call.id, ok: false, error: toThreadError(error) }),
    );
});

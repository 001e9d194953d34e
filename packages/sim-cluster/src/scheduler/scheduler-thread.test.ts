import type { LogRecord } from "@kubekit/generic-controlplane";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SchedulerWorker } from "./scheduler-thread.js";

// How the cluster hears of a scheduler thread that fails, with stand-in workers in place of the
// scheduler's (the real one runs in test/scheduler-thread.test.ts).

const script = (body: string) =>
  new URL(`data:text/javascript,${encodeURIComponent(`import { parentPort } from "node:worker_threads";\n${body}`)}`);
/** Answers the cluster's stop as the real worker does. */
const stops = `parentPort.once("message", () => parentPort.postMessage({ stopped: true }));`;
const data = { server: "http://127.0.0.1:1", token: "t", log: true };

let worker: SchedulerWorker | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await worker?.close();
  worker = undefined;
});

describe("SchedulerWorker", { timeout: 20_000 }, () => {
  it("logs the scheduler's failure in the thread as an error and keeps it", async () => {
    const records: LogRecord[] = [];
    worker = new SchedulerWorker(
      data,
      (record) => records.push(record),
      script(`${stops}\nparentPort.postMessage({ failed: { name: "TypeError", message: "boom" } });`),
    );
    await vi.waitFor(() => expect(worker!.error).toBeDefined());
    expect(worker.error).toMatchObject({ name: "TypeError", message: "boom" });
    expect(records).toContainEqual(expect.objectContaining({ level: "error", msg: "scheduler thread failed: pods stay Pending" }));
    expect(String(records.find((r) => r.level === "error")?.["error"])).toContain("boom");
    await worker.close();
    expect(worker.running).toBe(false);
  });

  it("passes the thread's log records on to the logger", async () => {
    const records: LogRecord[] = [];
    worker = new SchedulerWorker(
      data,
      (record) => records.push(record),
      script(`${stops}\nparentPort.postMessage({ log: { level: "warn", msg: "binding failed, retrying" } });`),
    );
    await vi.waitFor(() => expect(records).toEqual([{ level: "warn", msg: "binding failed, retrying" }]));
    await worker.close();
    expect(worker.error).toBeUndefined();
  });

  it("without a logger warns the process of a thread that crashed", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    worker = new SchedulerWorker(data, undefined, script(`throw new RangeError("crashed at start");`));
    await vi.waitFor(() => expect(worker!.running).toBe(false));
    expect(worker.error).toMatchObject({ name: "RangeError", message: "crashed at start" });
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]![0])).toContain("the scheduler thread failed: pods stay Pending: RangeError: crashed at start");
  });

  it("counts a thread that exits on its own as failed, and one stopped by close as not", async () => {
    const records: LogRecord[] = [];
    worker = new SchedulerWorker(data, (record) => records.push(record), script(`process.exit(3);`));
    await vi.waitFor(() => expect(worker!.running).toBe(false));
    expect(worker.error?.message).toMatch(/^the scheduler thread \d+ exited \(code 3\)$/);
    expect(records.filter((r) => r.level === "error")).toHaveLength(1);

    const quiet: LogRecord[] = [];
    worker = new SchedulerWorker(data, (record) => quiet.push(record), script(stops));
    await worker.close();
    expect(worker.running).toBe(false);
    expect(worker.error).toBeUndefined();
    expect(quiet).toEqual([]);
  });
});

import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { runCommand, UsageError, type CommandProcess, type CommandSpec } from "./run-command.js";

/** A process whose output, signals and exit code a test can see. */
function fakeProcess(...args: string[]) {
  const signals = new EventEmitter();
  let out = "";
  let err = "";
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const host: CommandProcess = {
    argv: ["node", "bin", ...args],
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    on: (signal, listener) => signals.on(signal, listener),
    exit: (code) => resolveExit(code),
  };
  return { host, signals, exited, out: () => out, err: () => err };
}

function spec(run: CommandSpec<{ help: boolean; name: string }>["run"]): CommandSpec<{ help: boolean; name: string }> {
  return {
    usage: "Usage: demo [--name x]",
    parse(argv) {
      if (argv[0] === "--bad") throw new Error("unknown flag --bad");
      return { help: argv[0] === "--help", name: argv[1] ?? "world" };
    },
    run,
  };
}

describe("runCommand", () => {
  it("exits 2 with the message and the usage when the flags do not parse", async () => {
    const p = fakeProcess("--bad");
    runCommand(
      spec(() => Promise.resolve(0)),
      p.host,
    );
    expect(await p.exited).toBe(2);
    expect(p.err()).toBe("unknown flag --bad\n\nUsage: demo [--name x]\n");
  });

  it("prints the usage for --help and exits 0 without running", async () => {
    const p = fakeProcess("--help");
    let ran = false;
    runCommand(
      spec(() => {
        ran = true;
        return Promise.resolve(0);
      }),
      p.host,
    );
    expect(await p.exited).toBe(0);
    expect(p.out()).toBe("Usage: demo [--name x]\n");
    expect(ran).toBe(false);
  });

  it("exits with the command's code, and 1 with the message alone for a UsageError", async () => {
    const done = fakeProcess();
    runCommand(
      spec(() => Promise.resolve(3)),
      done.host,
    );
    expect(await done.exited).toBe(3);

    const refused = fakeProcess();
    runCommand(
      spec(() => Promise.reject(new UsageError("--name must not be empty"))),
      refused.host,
    );
    expect(await refused.exited).toBe(1);
    expect(refused.err()).toBe("--name must not be empty\n");

    const failed = fakeProcess();
    runCommand(
      spec(() => Promise.reject(new Error("boom"))),
      failed.host,
    );
    expect(await failed.exited).toBe(1);
    expect(failed.err()).toMatch(/^Error: boom\n\s+at /);
  });

  it("says a failure of the system (its own or its cause's syscall) in one line, without a stack", async () => {
    const missing = fakeProcess();
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/nope/policy.yaml'"), {
      code: "ENOENT",
      syscall: "open",
    });
    runCommand(
      spec(() => Promise.reject(enoent)),
      missing.host,
    );
    expect(await missing.exited).toBe(1);
    expect(missing.err()).toBe("ENOENT: no such file or directory, open '/nope/policy.yaml'\n");

    const wrapped = fakeProcess();
    const cause = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE", syscall: "listen" });
    runCommand(
      spec(() => Promise.reject(new Error("failed to create listener: port taken", { cause }))),
      wrapped.host,
    );
    expect(await wrapped.exited).toBe(1);
    expect(wrapped.err()).toBe("failed to create listener: port taken\n");
  });

  it("ends quietly with 0 when the reader of its output goes away (EPIPE)", async () => {
    const stdout = new EventEmitter();
    const p = fakeProcess();
    const host: CommandProcess = { ...p.host, stdout: Object.assign(stdout, { write: () => true }) };
    runCommand(
      spec(() => Promise.resolve({ stop: () => Promise.resolve() })),
      host,
    );
    stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE", syscall: "write" }));
    expect(await p.exited).toBe(0);
    expect(p.err()).toBe("");
  });

  it("stops a serving command on SIGTERM and exits 0, logging as JSON lines", async () => {
    const p = fakeProcess();
    let stopped = 0;
    runCommand(
      spec(() => Promise.resolve({ stop: () => Promise.resolve(void stopped++) })),
      p.host,
    );
    await expect.poll(() => p.signals.listenerCount("SIGTERM")).toBe(1);
    p.signals.emit("SIGTERM", "SIGTERM");
    expect(await p.exited).toBe(0);
    expect(stopped).toBe(1);
    expect(JSON.parse(p.err().trim())).toMatchObject({ level: "info", msg: "shutting down", signal: "SIGTERM" });
  });

  it("exits 1 when stopping fails, and at once on a second signal", async () => {
    const failing = fakeProcess();
    runCommand(
      spec(() => Promise.resolve({ stop: () => Promise.reject(new Error("lease not released")) })),
      failing.host,
    );
    await expect.poll(() => failing.signals.listenerCount("SIGINT")).toBe(1);
    failing.signals.emit("SIGINT", "SIGINT");
    expect(await failing.exited).toBe(1);
    expect(failing.err()).toContain('"msg":"shutdown failed","error":"Error: lease not released"');

    const stuck = fakeProcess();
    runCommand(
      spec(() => Promise.resolve({ stop: () => new Promise<void>(() => undefined) })),
      stuck.host,
    );
    await expect.poll(() => stuck.signals.listenerCount("SIGINT")).toBe(1);
    stuck.signals.emit("SIGINT", "SIGINT");
    stuck.signals.emit("SIGTERM", "SIGTERM");
    expect(await stuck.exited).toBe(1);
    expect(stuck.err()).toContain('"msg":"second signal, exiting now","signal":"SIGTERM"');
  });
});

import { jsonLineLogger, type Logger } from "../server/logger.js";

/** A command line the user got wrong: its message is printed alone, without a stack. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A command that keeps running until SIGINT or SIGTERM: how to stop it cleanly. */
export interface RunningCommand {
  stop(): Promise<void>;
}

export interface CommandSpec<O extends { help: boolean }> {
  /** Printed for `--help`, and after the message of flags that do not parse. */
  usage: string;
  /** Reads the flags; throws (any error) when they are wrong. */
  parse(argv: string[]): O;
  /**
   * Runs the command, logging JSON lines to stderr: an exit code when it is done, or how to stop
   * it when it serves until a signal.
   */
  run(options: O, log: Logger): Promise<number | RunningCommand>;
}

/** The parts of `process` a command uses. */
export interface CommandProcess {
  argv: string[];
  stdout: { write(chunk: string): unknown; on?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown };
  stderr: { write(chunk: string): unknown };
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
}

/**
 * The life of a binary built on the library, as kube components behave: flags that do not parse
 * exit 2 with the usage; `--help` prints it and exits 0; a failure exits 1 (a `UsageError`, or a
 * failure of the system rather than of the program — a port in use, a missing file — with its
 * message in one line, anything else with its stack); a serving command stops cleanly on the
 * first SIGINT or SIGTERM and exits 0 (1 when stopping fails), and exits 1 at once on a second
 * signal. Output piped to a reader that stops early (`| head`) ends the command quietly.
 */
export function runCommand<O extends { help: boolean }>(spec: CommandSpec<O>, host: CommandProcess = process): void {
  host.stdout.on?.("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") host.exit(0);
  });
  void start(spec, host).then(
    (code) => {
      if (code !== undefined) host.exit(code);
    },
    (error: unknown) => {
      host.stderr.write(
        `${oneLine(error) ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      host.exit(1);
    },
  );
}

/** Whether `error` is said in one line: a UsageError, or one the system raised (it or its cause has a `syscall`). */
function oneLine(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    if (typeof (at as NodeJS.ErrnoException).syscall === "string") return true;
  }
  return false;
}

async function start<O extends { help: boolean }>(spec: CommandSpec<O>, host: CommandProcess): Promise<number | undefined> {
  let options: O;
  try {
    options = spec.parse(host.argv.slice(2));
  } catch (error) {
    host.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${spec.usage}\n`);
    return 2;
  }
  if (options.help) {
    host.stdout.write(`${spec.usage}\n`);
    return 0;
  }
  const log = jsonLineLogger(host.stderr);
  const outcome = await spec.run(options, log);
  if (typeof outcome === "number") return outcome;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log({ msg: "second signal, exiting now", signal });
      host.exit(1);
      return;
    }
    stopping = true;
    log({ msg: "shutting down", signal });
    outcome.stop().then(
      () => host.exit(0),
      (error: unknown) => {
        log({ level: "error", msg: "shutdown failed", error: String(error) });
        host.exit(1);
      },
    );
  };
  host.on("SIGINT", onSignal);
  host.on("SIGTERM", onSignal);
  return undefined;
}

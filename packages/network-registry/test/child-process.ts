import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A Node child process of test/fixtures whose stdout is read line by line. */
export class LineProcess {
  readonly child: ChildProcess;
  readonly #lines: string[] = [];
  readonly #waiters: Array<() => void> = [];
  #stderr = "";
  #exited = false;

  constructor(fixture: string, args: string[]) {
    this.child = spawn(process.execPath, [join(import.meta.dirname, "fixtures", fixture), ...args], { stdio: ["pipe", "pipe", "pipe"] });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      this.#lines.push(line);
      this.#wake();
    });
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-4_000);
    });
    this.child.once("exit", () => {
      this.#exited = true;
      this.#wake();
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** The next line printed; fails after `timeoutMs` or when the process exits first. */
  async nextLine(what: string, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      if (this.#exited) throw new Error(`${what}: the process exited (code ${this.child.exitCode}); stderr: ${this.#stderr}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`${what}: no output within ${timeoutMs} ms; stderr: ${this.#stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** SIGKILL (kill -9) and wait for the exit. */
  async kill(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGKILL");
    await exited;
  }
}

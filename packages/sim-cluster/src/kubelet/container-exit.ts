import type { Container } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import type { PodRecord } from "./pod-status.js";

/** When a simulated container's run ends, and how. */
export interface ContainerExit {
  /** How long the run lasts, from its start. */
  afterMs: number;
  exitCode: number;
}

/** Pod annotation: the exit codes of successive runs of every container, comma-separated (`"1,0"`: fails once, then succeeds); the last repeats. */
export const EXIT_CODES_ANNOTATION = "sim.kubekit.io/exit-codes";
/** Pod annotation: how long every container runs before it exits, in seconds (fractions allowed). */
export const RUN_SECONDS_ANNOTATION = "sim.kubekit.io/run-seconds";
/** The same for one container: `exit-codes.sim.kubekit.io/<container>`, `run-seconds.sim.kubekit.io/<container>`. */
const CONTAINER_EXIT_CODES_PREFIX = "exit-codes.sim.kubekit.io/";
const CONTAINER_RUN_SECONDS_PREFIX = "run-seconds.sim.kubekit.io/";

const SHELLS = new Set(["sh", "bash", "ash", "dash"]);
const DURATION = /^(\d+(?:\.\d+)?)([smhd]?)$/;
const UNIT_MS: Record<string, number> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const EXIT_CODE = /^\d{1,3}$/;

/**
 * How the `run`-th run (0 for the first) of `container` ends, or undefined when it runs until it
 * is stopped. The rule, first match wins:
 *
 * 1. Annotations: `exit-codes.sim.kubekit.io/<container>` or `sim.kubekit.io/exit-codes` give the
 *    exit code of each run (the last repeats), `run-seconds.sim.kubekit.io/<container>` or
 *    `sim.kubekit.io/run-seconds` how long it runs (default 0); either one makes the container exit.
 * 2. Its command and args: `sleep N` (N seconds, or with an s/m/h/d suffix; `infinity` never
 *    ends) exits 0 after N; `true` exits 0 and `false` 1 at once; a shell (`sh -c`, `bash -c`)
 *    script of `sleep N`, `exit N`, `true`, `false` and `:` joined by `;`, `&&`, `||` or new
 *    lines runs as a shell would (the time of its sleeps, the code of its `exit` or last command);
 *    `echo` of quoted or plain words (nothing to expand or redirect) succeeds and prints them.
 * 3. Anything else (no command, a server, a script with other commands) runs until stopped.
 */
export function containerExit(pod: Pod, container: Container, run: number): ContainerExit | undefined {
  const annotated = fromAnnotations(pod.metadata?.annotations ?? {}, container.name ?? "", run);
  if (annotated !== undefined) return annotated;
  const script = scriptOf(container);
  return script === undefined ? undefined : runScript(script)?.exit;
}

/**
 * What a container's command writes to its stdout, by the same rule: the lines `echo` prints in a
 * script the rule knows (whether or not annotations decide its exit). Empty for anything else.
 */
export function containerOutput(container: Container): string[] {
  const script = scriptOf(container);
  return script === undefined ? [] : (runScript(script)?.output ?? []);
}

function scriptOf(container: Container): string | undefined {
  const words = [...stringsOf(container["command"]), ...stringsOf(container["args"])];
  if (words.length === 0) return undefined;
  const program = basename(words[0]!);
  if (SHELLS.has(program)) return words[1] === "-c" ? words[2] : undefined;
  return words.map(quoteWord).join(" ");
}

function fromAnnotations(annotations: Record<string, string>, name: string, run: number): ContainerExit | undefined {
  const own = (prefix: string, podWide: string): string | undefined => {
    const key = prefix + name;
    if (Object.hasOwn(annotations, key)) return annotations[key];
    return Object.hasOwn(annotations, podWide) ? annotations[podWide] : undefined;
  };
  const codes = own(CONTAINER_EXIT_CODES_PREFIX, EXIT_CODES_ANNOTATION);
  const seconds = own(CONTAINER_RUN_SECONDS_PREFIX, RUN_SECONDS_ANNOTATION);
  if (codes === undefined && seconds === undefined) return undefined;
  const list = (codes ?? "0")
    .split(",")
    .map((c) => c.trim())
    .filter((c) => EXIT_CODE.test(c))
    .map(Number);
  const exitCode = list.length === 0 ? 0 : list[Math.min(run, list.length - 1)]!;
  const afterMs = seconds === undefined ? 0 : durationMs(seconds.trim());
  return { afterMs: afterMs ?? 0, exitCode: Math.min(exitCode, 255) };
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function quoteWord(word: string): string {
  if (/^[\w./:-]+$/.test(word)) return word;
  return word.includes("'") ? "\u0000" : `'${word}'`;
}

/** A word with its quotes taken off; undefined when the shell would expand or redirect something in it. */
function unquote(word: string): string | undefined {
  let out = "";
  for (const part of word.match(/'[^']*'|"[^"]*"|[^'"]+/g) ?? []) {
    if (part.startsWith("'")) out += part.slice(1, -1);
    else if (/[$`\\<>*?~]/.test(part)) return undefined;
    else out += part.startsWith('"') ? part.slice(1, -1) : part;
  }
  return out;
}

/** `sleep`'s operand in ms, or undefined when it is not one. */
function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? ""]!);
}

/**
 * Runs a script of the commands the rule knows. `&&` runs the next command only after success,
 * `||` only after failure; `;` and new lines always. Undefined when a command is not known or
 * a sleep never ends.
 */
function runScript(script: string): { exit: ContainerExit; output: string[] } | undefined {
  const tokens = script.match(/&&|\|\||;|\n|(?:'[^']*'|"[^"]*"|[^\s;&|'"])+|[&|'"]/g) ?? [];
  let afterMs = 0;
  let status = 0;
  let skip = false;
  let command: string[] = [];
  const output: string[] = [];
  const finish = (): ContainerExit | undefined | "ok" => {
    if (command.length === 0) return "ok";
    const words = command.map(unquote);
    command = [];
    if (words.some((w) => w === undefined)) return undefined;
    const [name, ...operands] = words as string[];
    if (skip) return "ok";
    switch (basename(name!)) {
      case "echo":
        // `-n` and `-e` change what is printed: not simulated.
        if (operands[0]?.startsWith("-")) return undefined;
        output.push(operands.join(" "));
        status = 0;
        return "ok";
      case "sleep": {
        if (operands.length !== 1) return undefined;
        const ms = durationMs(operands[0]!);
        if (ms === undefined) return undefined;
        afterMs += ms;
        status = 0;
        return "ok";
      }
      case "true":
      case ":":
        if (operands.length > 0 && basename(name!) === "true") return undefined;
        status = 0;
        return "ok";
      case "false":
        status = 1;
        return "ok";
      case "exit": {
        if (operands.length > 1) return undefined;
        if (operands.length === 1 && !EXIT_CODE.test(operands[0]!)) return undefined;
        return { afterMs, exitCode: operands.length === 1 ? Number(operands[0]) % 256 : status };
      }
      default:
        return undefined;
    }
  };
  for (const token of [...tokens, ";"]) {
    if (token === "&&" || token === "||" || token === ";" || token === "\n") {
      const outcome = finish();
      if (outcome === undefined) return undefined;
      if (typeof outcome === "object") return { exit: outcome, output };
      skip = token === "&&" ? status !== 0 : token === "||" ? status === 0 : false;
    } else if (token === "&" || token === "|" || token === "'" || token === '"') return undefined;
    else command.push(token);
  }
  return { exit: { afterMs, exitCode: status }, output };
}

/**
 * The kubelet's getPhase for a pod whose containers all started: Running while any container
 * runs or waits to restart; once all have ended, Succeeded when every one exited 0, else Failed.
 */
export function podPhase(record: PodRecord): "Running" | "Succeeded" | "Failed" {
  if (record.containers.some((c) => c.terminated === undefined || c.waiting !== undefined)) return "Running";
  return record.containers.every((c) => c.terminated?.["exitCode"] === 0) ? "Succeeded" : "Failed";
}

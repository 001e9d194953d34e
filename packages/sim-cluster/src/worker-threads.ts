import type { Logger, LogRecord } from "@kubekit/generic-controlplane";

/** An error as it crosses between threads: a structured clone keeps neither its class nor its `code`. */
export interface ThreadError {
  name: string;
  message: string;
  code?: unknown;
  stack?: string | undefined;
}

/**
 * The entry a worker runs, `<name>.js` beside the module at `besideUrl` (its `import.meta.url`):
 * in the built package every entry and worker sit together in `dist/`; from source (the package's
 * own tests), the TypeScript file beside that module behind a bootstrap whose resolve hook maps
 * the sources' `.js` imports to their `.ts` files (Node strips the types).
 */
export function workerEntry(besideUrl: string, name: string): URL {
  if (!besideUrl.endsWith(".ts")) return new URL(`./${name}.js`, besideUrl);
  const entry = new URL(`./${name}.ts`, besideUrl).href;
  const bootstrap = `import { registerHooks } from "node:module";
registerHooks({ resolve(specifier, context, next) {
  try { return next(specifier, context); }
  catch (error) { if (specifier.startsWith(".") && specifier.endsWith(".js")) return next(specifier.slice(0, -3) + ".ts", context); throw error; }
} });
await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

export function toThreadError(error: unknown): ThreadError {
  const { name, message, stack, code }: Error & { code?: unknown } = error instanceof Error ? error : new Error(String(error));
  return { name, message, stack, ...(code !== undefined ? { code } : {}) };
}

export function errorFrom(thrown: ThreadError): Error {
  const error = new Error(thrown.message);
  error.name = thrown.name;
  if (thrown.stack !== undefined) error.stack = thrown.stack;
  if (thrown.code !== undefined) Object.assign(error, { code: thrown.code });
  return error;
}

/** A logger of a worker that sends each record to the parent thread with `send`. */
export function forwardingLogger(send: (record: LogRecord) => void): Logger {
  return (record) => {
    try {
      send(record);
    } catch {
      // A record that cannot be cloned still says what happened.
      send({ msg: record.msg, ...(record.level !== undefined ? { level: record.level } : {}) });
    }
  };
}

/** One structured log record (one JSON line when written by `jsonLineLogger`). */
export type LogRecord = { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>;

/** Where the server writes its logs. The library logs nothing unless given one. */
export type Logger = (record: LogRecord) => void;

/** Writes each record as one JSON line with a timestamp, e.g. to `process.stderr`. */
export function jsonLineLogger(stream: { write(chunk: string): unknown }): Logger {
  return (record) => {
    stream.write(JSON.stringify({ time: new Date().toISOString(), level: record.level ?? "info", ...record }) + "\n");
  };
}

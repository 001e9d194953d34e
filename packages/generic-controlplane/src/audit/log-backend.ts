import { createWriteStream, type WriteStream } from "node:fs";
import { readdir, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { stringifyExactJson } from "../api/exact-json.js";

/** Where audit events go; `write` never throws into a request. */
export interface AuditBackend {
  write(event: object): void;
  close(): Promise<void>;
}

/** kube-apiserver's `--audit-log-*` flags. */
export interface AuditLogOptions {
  /** The file events are appended to as JSON lines (`--audit-log-path`); `-` writes to stdout. */
  path: string;
  /** Rotate once the file reaches this many megabytes (`--audit-log-maxsize`, 0 = never; default 100). */
  maxSizeMB?: number;
  /** Rotated files kept (`--audit-log-maxbackup`, 0 = all). */
  maxBackups?: number;
  /** Days rotated files are kept (`--audit-log-maxage`, 0 = forever). */
  maxAgeDays?: number;
}

/**
 * A JSON-lines audit log with kube-apiserver's rotation (its lumberjack logger): when a write would
 * pass `maxSizeMB`, the file is renamed to `<name>-<UTC time>.<ext>` and a new one started; the
 * oldest rotated files beyond `maxBackups` or older than `maxAgeDays` are removed. Writes are
 * ordered and buffered; `close()` flushes.
 */
export function createAuditLog(options: AuditLogOptions): AuditBackend {
  if (options.path === "-") {
    return { write: (event) => void process.stdout.write(`${stringifyExactJson(event)}\n`), close: () => Promise.resolve() };
  }
  const maxBytes = (options.maxSizeMB ?? 100) * 1024 * 1024;
  const pending: string[] = [];
  let stream: WriteStream | undefined;
  let size = 0;

  const rotate = async (current: WriteStream) => {
    await new Promise<void>((resolve) => current.end(resolve));
    // Two rotations within one millisecond would share a name: the later one takes the next millisecond.
    let at = Date.now();
    while (
      await stat(backupName(options.path, new Date(at))).then(
        () => true,
        () => false,
      )
    )
      at++;
    await rename(options.path, backupName(options.path, new Date(at)));
    size = 0;
    stream = createWriteStream(options.path, { flags: "a", mode: 0o600 });
    await prune(options);
  };

  /** Writes every pending line; one drain runs at a time (they are chained), so lines keep their order. */
  const drain = async () => {
    if (stream === undefined) {
      size = await stat(options.path).then(
        (s) => s.size,
        () => 0,
      );
      stream = createWriteStream(options.path, { flags: "a", mode: 0o600 });
    }
    while (pending.length > 0) {
      const line = pending.shift()!;
      const bytes = Buffer.byteLength(line);
      if (maxBytes > 0 && size > 0 && size + bytes > maxBytes) await rotate(stream);
      size += bytes;
      const current = stream;
      if (!current.write(line)) await new Promise<void>((resolve) => current.once("drain", () => resolve()));
    }
  };

  let queue: Promise<void> = Promise.resolve();
  return {
    write(event) {
      pending.push(`${stringifyExactJson(event)}\n`);
      // An unwritable log loses its events but never fails a request.
      queue = queue.then(drain).catch(() => undefined);
    },
    async close() {
      await queue;
      const last = stream;
      if (last !== undefined) await new Promise<void>((resolve) => last.end(resolve));
    },
  };
}

/** lumberjack's backup name: `audit.log` → `audit-2006-01-02T15-04-05.000.log`. */
function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const stamp = at.toISOString().replace(/:/g, "-").replace("Z", "");
  return join(dirname(path), `${stem}-${stamp}${ext}`);
}

async function prune(options: AuditLogOptions): Promise<void> {
  const ext = extname(options.path);
  const stem = basename(options.path, ext);
  const dir = dirname(options.path);
  const backups = (await readdir(dir))
    .filter((name) => name.startsWith(`${stem}-`) && name.endsWith(ext) && name !== basename(options.path))
    .sort()
    .reverse();
  const cutoff = (options.maxAgeDays ?? 0) > 0 ? Date.now() - options.maxAgeDays! * 86_400_000 : undefined;
  for (const [index, name] of backups.entries()) {
    const tooMany = (options.maxBackups ?? 0) > 0 && index >= options.maxBackups!;
    const tooOld = cutoff !== undefined && (await stat(join(dir, name))).mtimeMs < cutoff;
    if (tooMany || tooOld) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/**
 * Child process for the kill -9 test: opens the database given as argv[2] and creates keys with
 * several concurrent writers, printing `ack <key> <revision>` only after each create resolved.
 * Runs from source on Node's type stripping (see run-from-source.ts).
 */

await import(new URL("../run-from-source.ts", import.meta.url).href);

const { createSqliteStorage } = await import("./sqlite.js");
const path = process.argv[2];
if (path === undefined) throw new Error("usage: sqlite-crash-writer <database>");
// The test keeps stdin open; when it closes (the test runner went away) stop instead of writing forever.
process.stdin.on("end", () => process.exit(2));
process.stdin.on("close", () => process.exit(2));
process.stdin.resume();
const storage = await createSqliteStorage({ path, compactInterval: 0 });
process.stdout.write("ready\n");

async function writer(id: number): Promise<never> {
  for (let i = 0; ; i++) {
    const key = `/registry/configmaps/burst/w${id}-${i}`;
    const kv = await storage.create(key, JSON.stringify({ writer: id, i }));
    process.stdout.write(`ack ${key} ${kv.modRevision}\n`);
  }
}

await Promise.all(Array.from({ length: 4 }, (_, id) => writer(id)));

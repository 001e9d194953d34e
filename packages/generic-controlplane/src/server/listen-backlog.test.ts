import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinResources } from "../index.js";
import { createResourceStore } from "../registry/index.js";
import { createMemoryStorage } from "../storage/index.js";
import { ApiServer, versionInfo } from "./index.js";

/**
 * Connections a busy server has not accepted yet wait in the kernel's queue of the listening
 * socket. Past its length the kernel drops the handshakes, and each client tries again only after
 * 1, 3, 7, 15 and 31 s. A Node server accepts at most one connection per turn of its event loop,
 * and a loaded one turns 10-20 times a second, so bursts of new connections (clients of HTTP/1.1
 * open one per concurrent request) used to wait those seconds behind Node's default queue of 511.
 */
const CONNECTIONS = 700;
const BLOCKED_MS = 1500;

/** Opens CONNECTIONS connections at once and prints how many took longer than a second to connect. */
const BURST = `
const net = require("node:net");
const [port, count] = [Number(process.argv[1]), Number(process.argv[2])];
const sockets = [];
let late = 0, done = 0;
process.stdout.write("go\\n");
for (let i = 0; i < count; i++) {
  const start = Date.now();
  const socket = net.connect(port, "127.0.0.1", () => {
    if (Date.now() - start > 1000) late++;
    if (++done === count) { process.stdout.write("late " + late + "\\n"); for (const s of sockets) s.destroy(); }
  });
  socket.on("error", (error) => { process.stdout.write("error " + error.message + "\\n"); process.exit(1); });
  sockets.push(socket);
}
`;

let server: ApiServer;
let port: number;
const storage = createMemoryStorage({ compactInterval: 0 });

beforeAll(async () => {
  const definition = builtinResources.configmaps;
  server = new ApiServer({ version: versionInfo(), resources: [{ definition, store: createResourceStore(definition, storage) }] });
  port = (await server.listen(0, "127.0.0.1")).port;
});

afterAll(async () => {
  await server.close();
  await storage.close();
});

describe("the listening socket", () => {
  it("queues a burst of connections made while the server is busy, as Go's listener, instead of dropping their handshakes", async () => {
    const child = spawn(process.execPath, ["-e", BURST, String(port), String(CONNECTIONS)], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    const finished = new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        // The server's event loop is held while the burst arrives: nothing is accepted meanwhile.
        if (output === "go\n") Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, BLOCKED_MS);
        if (/late \d+\n|error/.test(output)) resolve(output);
      });
      child.on("exit", (code) => (code === 0 ? undefined : reject(new Error(`burst exited ${code}: ${output}`))));
    });
    const result = await finished;
    child.kill();
    expect(result).toMatch(/late 0\n/);
  }, 30_000);
});

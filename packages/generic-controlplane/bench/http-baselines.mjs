// Baselines that isolate the server's own cost: the same bytes from a bare node:http server, and
// JSON.stringify of the same objects (the encoding floor of a LIST).
import { randomUUID } from "node:crypto";
import { Agent, createServer, request } from "node:http";

/** A bare node:http server answering every request with `body`: the floor for serving those bytes over HTTP. */
export async function bareServer(body) {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Median time of `JSON.stringify(value)` over `repeats` runs (after one warm-up). */
export function stringifyMs(value, repeats) {
  JSON.stringify(value);
  const times = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    JSON.stringify(value);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * A bare node:http server answering each POSTed object as a create does (201 and the object back
 * with a uid, resourceVersion and creationTimestamp), storing nothing: the floor of the HTTP part of
 * a create for the same client on this machine.
 */
export async function bareCreateServer() {
  let revision = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const object = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      object.metadata = {
        ...object.metadata,
        uid: randomUUID(),
        resourceVersion: String(++revision),
        creationTimestamp: new Date().toISOString(),
      };
      const body = JSON.stringify(object);
      res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A bare node:http server that fans each POSTed object out to every open watch as an ADDED event
 * line, with the same chunked framing the API server uses: the floor of watch delivery for the same
 * watchers on this machine (socket writes and the client's reads, with no storage or registry).
 */
export async function bareFanoutServer() {
  const watchers = new Set();
  const server = createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      res.flushHeaders();
      watchers.add(res);
      res.on("close", () => watchers.delete(res));
      return;
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const line = `{"type":"ADDED","object":${Buffer.concat(chunks).toString("utf8")}}\n`;
      res.writeHead(201, { "content-type": "application/json", "content-length": 2 });
      res.end("{}");
      for (const watcher of watchers) watcher.write(line);
    });
  });
  server.keepAliveTimeout = 0;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const watcher of watchers) watcher.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `count` DELETE round trips with `concurrency` in flight, client and a bare node:http server in this
 * process (as the in-process garbage collector and the API server share one), each answered with a
 * small Status: what one HTTP request per dependent costs at the least, in ms.
 */
export async function bareDeleteRoundTripsMs(count, concurrency) {
  const status = Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}');
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": status.length });
      res.end(status);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  const agent = new Agent({ keepAlive: true });
  const body = JSON.stringify({ apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" });
  const roundTrip = (i) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: `/api/v1/namespaces/bare/secrets/dep-${i}`,
          method: "DELETE",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks = [];
          res.on("data", (chunk) => chunks.push(chunk));
          res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  try {
    const run = async () => {
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < count) await roundTrip(next++);
        }),
      );
      return performance.now() - start;
    };
    await run(); // compiles the client and server paths, as the collector's are by its own first requests
    return await run();
  } finally {
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

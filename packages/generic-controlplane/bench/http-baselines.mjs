// Baselines that isolate the server's own cost: the same bytes from a bare node:http server, and
// JSON.stringify of the same objects (the encoding floor of a LIST).
import { createServer } from "node:http";

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

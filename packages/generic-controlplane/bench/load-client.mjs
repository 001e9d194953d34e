// The client side of the benchmark, in its own process so request generation and response parsing
// share neither the server's event loop nor its file-descriptor limit (10,000 watches are 10,000
// sockets on each side). Talks plain HTTP/1.1 to 127.0.0.1 only; driven over the IPC channel.
import http from "node:http";

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const STAMP = Buffer.from('"sentAt":"');
const QUOTE = 0x22;
const NEWLINE = 0x0a;

function request(agent, method, url, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          accept: "application/json",
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/** `count` POSTs with `concurrency` in flight; returns creates per second. */
async function creates({ url, namespace, count, concurrency, prefix }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let errors = 0;
  const start = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await request(agent, "POST", `${url}/api/v1/namespaces/${namespace}/configmaps`, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${prefix}-${i}`, labels: { bench: "yes" } },
          data: { index: String(i), payload: "x".repeat(64) },
        });
        if (res.status !== 201) errors++;
      }
    }),
  );
  const seconds = (nowMs() - start) / 1000;
  agent.destroy();
  return { perSecond: count / seconds, seconds, errors };
}

/** Open-loop GETs at a fixed rate: a request is sent on schedule whether or not earlier ones returned. */
async function getsAtRate({ url, path, rate, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const total = Math.round(rate * seconds);
  const latencies = [];
  let errors = 0;
  const start = nowMs();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = nowMs();
    pending.push(
      request(agent, "GET", url + path).then(
        (res) => {
          if (res.status === 200) latencies.push(nowMs() - sent);
          else errors++;
        },
        () => errors++,
      ),
    );
  }
  await Promise.all(pending);
  const achieved = total / ((nowMs() - start) / 1000);
  agent.destroy();
  return { ...summary(latencies), errors, achievedRate: achieved };
}

async function list({ url, path, repeats }) {
  const agent = new http.Agent({ keepAlive: true });
  const times = [];
  let items = 0;
  let bytes = 0;
  for (let i = 0; i < repeats; i++) {
    const start = nowMs();
    const res = await request(agent, "GET", url + path);
    const parsed = JSON.parse(res.body.toString("utf8"));
    times.push(nowMs() - start);
    items = parsed.items.length;
    bytes = res.body.length;
  }
  agent.destroy();
  return { ...summary(times), items, bytes };
}

/**
 * `watchers` watches on one namespace, then `events` creates at `rate`/s whose data carries the
 * send time; each delivery's latency is receive time minus that stamp (one clock: hrtime is
 * process-wide).
 */
async function watchFanout({ url, namespace, watchers, events, rate }) {
  const latencies = [];
  const streams = [];
  let delivered = 0;
  const expected = watchers * events;
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  /** Opens one watch; a 429 from flow control is retried after its Retry-After, as client-go does. */
  const open = (attempt = 0) =>
    new Promise((resolve, reject) => {
      const req = http.get(`${url}/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=0`, { agent: false }, (res) => {
        if (res.statusCode === 429 && attempt < 20) {
          res.resume();
          const seconds = Number(res.headers["retry-after"] ?? 1);
          setTimeout(() => open(attempt + 1).then(resolve, reject), seconds * 1000);
          return;
        }
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        // Scans the bytes for each event's stamp: decoding and splitting every line as text would
        // make this process, not the server, the slower side of the fan-out.
        let partial = null;
        res.on("data", (chunk) => {
          const received = nowMs();
          const bytes = partial === null ? chunk : Buffer.concat([partial, chunk]);
          const complete = bytes.lastIndexOf(NEWLINE) + 1;
          partial = complete === bytes.length ? null : bytes.subarray(complete);
          let at = 0;
          for (;;) {
            const marker = bytes.indexOf(STAMP, at);
            if (marker < 0 || marker >= complete) break;
            const start = marker + STAMP.length;
            const end = bytes.indexOf(QUOTE, start);
            latencies.push(received - Number(bytes.toString("latin1", start, end)));
            if (++delivered === expected) allDelivered();
            at = end + 1;
          }
        });
        res.on("error", () => {});
        streams.push(req);
        resolve();
      });
      req.on("error", reject);
    });
  await Promise.all(Array.from({ length: watchers }, () => open()));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const start = nowMs();
  for (let i = 0; i < events; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const res = await request(agent, "POST", `${url}/api/v1/namespaces/${namespace}/configmaps`, {
      metadata: { name: `fanout-${i}` },
      data: { sentAt: nowMs().toFixed(3) },
    });
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  }
  let timer;
  const timedOut = await Promise.race([
    done.then(() => false),
    new Promise((resolve) => (timer = setTimeout(() => resolve(true), 60_000))),
  ]);
  clearTimeout(timer);
  for (const req of streams) req.destroy();
  agent.destroy();
  return { ...summary(latencies), delivered, expected, timedOut };
}

const tasks = { creates, getsAtRate, list, watchFanout };

process.on("message", async ({ id, task, args }) => {
  try {
    process.send({ id, result: await tasks[task](args) });
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) });
  }
});
process.on("disconnect", () => process.exit(0));

import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";

/**
 * Fuzzes the server below HTTP's happy path, on raw sockets to 127.0.0.1: broken request lines,
 * header names and values with forbidden bytes, oversized headers, chunked bodies with bad sizes
 * or truncated, Content-Length that lies, protobuf magic followed by garbage, and pipelined
 * requests. Whatever arrives, the server answers below 500 or closes the connection, keeps
 * serving, and an object no request names (in a namespace of its own, since a well-formed
 * DELETE of the default collection is a legitimate request) is unchanged byte for byte.
 *
 * Deterministic by default; FUZZ_SEED and FUZZ_RUNS override.
 */
const SEED = Number(process.env["FUZZ_SEED"] ?? 23_1126);
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 250);
const PARAMETERS = { seed: SEED, numRuns: RUNS, endOnFailure: true };
const TIMEOUT_MS = 30_000 + RUNS * 40;
/** A socket the server neither answers nor closes within this is a hang. */
const ANSWER_TIMEOUT_MS = 5_000;

let t: TestPlane;
let port: number;
let untouched: string;
let sent = 0;

beforeAll(async () => {
  t = await startTestPlane({ bodyReadIdleTimeoutMs: 500, bodyReadTimeoutMs: 2_000 });
  port = Number(new URL(t.url).port);
  await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "guarded" } } });
  await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("sentinel") });
  const created = await t.call("POST", "/api/v1/namespaces/guarded/configmaps", { body: configMap("untouched", { keep: "me" }) });
  expect(created.status).toBe(201);
  untouched = created.text;
});
afterAll(async () => {
  await t.close();
  console.log(`wire fuzz: ${sent} raw requests sent (seed ${SEED}, ${RUNS} runs per property)`);
});

interface WireAnswer {
  /** Status codes of the responses read, in order (pipelined requests get several). */
  statuses: number[];
  closed: boolean;
}

/** Writes `bytes` and half-closes; collects the status lines until the server closes or goes quiet. */
function exchange(bytes: Buffer): Promise<WireAnswer> {
  sent++;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ statuses, closed });
    };
    const timer = setTimeout(() => {
      // Silence after a complete answer is a kept-alive connection, not a hang.
      if (chunks.length > 0) done(false);
      else reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms to ${JSON.stringify(bytes.toString("latin1").slice(0, 300))}`));
    }, ANSWER_TIMEOUT_MS);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => done(true));
    socket.on("error", () => done(true));
    socket.write(bytes, () => socket.end());
  });
}

const token = fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/);
const method = fc.oneof(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE"), token);
const pathOf = fc.oneof(
  fc.constantFrom(
    "/api/v1/namespaces/default/configmaps",
    "/api/v1/namespaces/default/configmaps/sentinel",
    "/apis",
    "/version",
    "/openapi/v2",
    "*",
  ),
  fc.string({ maxLength: 60 }).map((s) => `/${encodeURI(s)}`),
  fc.string({ unit: "binary-ascii", maxLength: 40 }),
);
const version = fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.x", "", "http/1.1");
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary-ascii", maxLength: 40 }),
  fc.constant("x".repeat(20_000)),
);
const header = fc.tuple(
  fc.oneof(
    token,
    fc.string({ unit: "binary-ascii", maxLength: 12 }),
    fc.constantFrom("Content-Type", "Content-Length", "Transfer-Encoding", "Accept", "Host", "Expect", "Impersonate-User"),
  ),
  headerValue,
);
const body = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(bytes)])),
  fc.json().map((json) => Buffer.from(json)),
);

function request(line: string, headers: ReadonlyArray<readonly [string, string]>, payload: Buffer): Buffer {
  const head = `${line}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), payload]);
}

/** Below 500, or no answer but a closed connection (Node's parser closes on what is not HTTP). */
function expectSurvivable(answer: WireAnswer, what: Buffer): void {
  const where = JSON.stringify(what.toString("latin1").slice(0, 300));
  for (const status of answer.statuses) expect(status, where).toBeLessThan(500);
  if (answer.statuses.length === 0) expect(answer.closed, where).toBe(true);
}

describe("wire fuzz", () => {
  it(
    "request lines, headers and bodies of any shape",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          method,
          pathOf,
          version,
          fc.array(header, { maxLength: 6 }),
          body,
          async (verb, target, httpVersion, headers, payload) => {
            const bytes = request(`${verb} ${target} ${httpVersion}`.trim(), [["Host", "127.0.0.1"], ...headers], payload);
            expectSurvivable(await exchange(bytes), bytes);
          },
        ),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "chunked bodies with bad sizes, extensions, trailers or truncation, and Content-Length that lies",
    async () => {
      const chunk = fc.oneof(
        fc
          .tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.boolean())
          .map(
            ([bytes, honest]) =>
              `${(honest ? bytes.length : bytes.length + 7).toString(16)}\r\n${Buffer.from(bytes).toString("latin1")}\r\n`,
          ),
        fc.constantFrom("zz\r\nabc\r\n", "-1\r\n\r\n", "ffffffffffffffff\r\nx\r\n", "3;ext=1\r\nabc\r\n", "3\r\nabcdef\r\n", "\r\n"),
      );
      const ending = fc.constantFrom("0\r\n\r\n", "0\r\nX-Trailer: 1\r\n\r\n", "", "0\r\n");
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("POST", "PUT", "PATCH"),
          fc.constantFrom("/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/sentinel"),
          fc.array(chunk, { maxLength: 4 }),
          ending,
          fc.option(fc.nat({ max: 500 }), { nil: undefined }),
          async (verb, target, chunks, end, length) => {
            const headers: Array<[string, string]> = [
              ["Host", "127.0.0.1"],
              ["Content-Type", "application/merge-patch+json"],
              ["Transfer-Encoding", "chunked"],
            ];
            if (length !== undefined) headers.push(["Content-Length", String(length)]);
            const bytes = request(`${verb} ${target} HTTP/1.1`, headers, Buffer.from(chunks.join("") + end, "latin1"));
            expectSurvivable(await exchange(bytes), bytes);
          },
        ),
        { ...PARAMETERS, numRuns: Math.min(RUNS, 150) },
      );
    },
    TIMEOUT_MS,
  );

  it("keeps serving, with what was stored before unchanged", async () => {
    const now = await t.call("GET", "/api/v1/namespaces/guarded/configmaps/untouched");
    expect(now.status).toBe(200);
    expect(now.text).toBe(untouched);
    expect((await t.call("GET", "/readyz")).status).toBe(200);
  });
});

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

const CM = "/api/v1/namespaces/default/configmaps";

/** Reads newline-delimited watch events until `count` arrived or the stream ends. */
async function openWatch(path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(t.url + path, { headers, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  const events: any[] = [];
  const rawLines: string[] = [];
  const next = async (count: number, timeoutMs = 5000): Promise<any[]> => {
    // One deadline for the whole wait, raced against each read, so a stalled stream fails in time.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`only ${events.length} of ${count} events within ${timeoutMs} ms: ${JSON.stringify(events)}`)),
        timeoutMs,
      );
    });
    try {
      while (events.length < count && !ended) {
        const { value, done } = await Promise.race([reader.read(), deadline]);
        if (done) {
          ended = true;
          break;
        }
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          rawLines.push(line);
          events.push(JSON.parse(line));
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return events.slice(0, count);
  };
  /** Reads until the server ends the stream; fails if it is still open after `timeoutMs`. */
  const untilEnd = async (timeoutMs = 5000) => {
    await next(Number.MAX_SAFE_INTEGER, timeoutMs);
    return { ended, events, rest: buffer };
  };
  return { response, next, untilEnd, close: () => controller.abort(), rawLines };
}

describe("watch", () => {
  it("streams line-delimited JSON events from a resourceVersion and filters by label", async () => {
    const list = await t.call("GET", CM);
    const rv = list.json.metadata.resourceVersion;
    const w = await openWatch(`${CM}?watch=true&resourceVersion=${rv}&labelSelector=w%3D1`);
    expect(w.response.status).toBe(200);
    expect(w.response.headers.get("content-type")).toBe("application/json");
    await t.call("POST", CM, { body: configMap("w-other", {}, { w: "2" }) });
    await t.call("POST", CM, { body: configMap("w1", {}, { w: "1" }) });
    await t.call("PATCH", `${CM}/w1`, {
      raw: JSON.stringify({ data: { b: "2" } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    await t.call("DELETE", `${CM}/w1`);
    const events = await w.next(3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events.every((e) => e.object.metadata.name === "w1")).toBe(true);
    w.close();
  });

  it("replays history from a past resourceVersion (python test_watch_configmaps)", async () => {
    await t.call("POST", CM, { body: configMap("h-a", {}, { h: "1" }) });
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    await t.call("POST", CM, { body: configMap("h-b", {}, { h: "1" }) });
    await t.call("PATCH", `${CM}/h-b`, {
      raw: JSON.stringify({ data: { x: "y" } }),
      headers: { "Content-Type": "application/strategic-merge-patch+json" },
    });
    await t.call("DELETE", `${CM}?labelSelector=h%3D1`);
    const w = await openWatch(`${CM}?resourceVersion=${rv}&timeoutSeconds=2&watch=True&labelSelector=h%3D1`);
    const events = await w.next(4);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED", "DELETED"]);
    expect(events[0].object.metadata.name).toBe("h-b");
    w.close();
  });

  it("ends the stream after timeoutSeconds with a clean end of body", async () => {
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    const started = Date.now();
    const w = await openWatch(`${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    const { ended } = await w.untilEnd(5000);
    expect(ended).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("with bookmarks allowed, sends a BOOKMARK 2 s before timeoutSeconds ends the stream", async () => {
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    const started = Date.now();
    const w = await openWatch(`${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=3&allowWatchBookmarks=true`);
    const [event] = await w.next(1, 5000);
    expect(event).toMatchObject({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: rv } } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const { ended, events } = await w.untilEnd(5000);
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
  });

  it("keeps a watch open for a timeoutSeconds beyond Node's timer range (2,147,484 s and more)", async () => {
    for (const timeout of ["2147484", "9223372036854775807"]) {
      const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
      const w = await openWatch(`${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=${timeout}`);
      await t.call("POST", CM, { body: configMap(`long-timeout-${timeout.length}`) });
      const events = await w.next(1);
      expect(events[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: `long-timeout-${timeout.length}` } } });
      w.close();
    }
  });

  it("rejects a timeoutSeconds that is not an int64 with 400, as ParseInt does upstream", async () => {
    for (const [value, why] of [
      ["1e99", "invalid syntax"],
      ["1.5", "invalid syntax"],
      ["0x10", "invalid syntax"],
      ["9223372036854775808", "value out of range"],
    ] as const) {
      const response = await t.call("GET", `${CM}?watch=1&timeoutSeconds=${value}`);
      expect(response.status, value).toBe(400);
      expect(response.json).toMatchObject({
        kind: "Status",
        reason: "BadRequest",
        code: 400,
        message: `strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`,
      });
    }
  });

  it("starts with ADDED events for the current state when no resourceVersion is given, on the legacy /watch/ path", async () => {
    await t.call("POST", CM, { body: configMap("legacy-w") });
    const w = await openWatch(`/api/v1/watch/namespaces/default/configmaps/legacy-w`);
    const [first] = await w.next(1);
    expect(first).toMatchObject({ type: "ADDED", object: { metadata: { name: "legacy-w" } } });
    w.close();
  });

  it("sends Table-form events for the Table Accept (kubectl get -w)", async () => {
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    const w = await openWatch(`${CM}?watch=true&resourceVersion=${rv}`, {
      Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
    });
    await t.call("POST", CM, { body: configMap("tbl") });
    const [event] = await w.next(1);
    expect(event.type).toBe("ADDED");
    expect(event.object.kind).toBe("Table");
    expect(event.object.rows[0].cells[0]).toBe("tbl");
    w.close();
  });

  it("sends an ERROR event with a 410 Expired Status for a compacted resourceVersion", async () => {
    for (let i = 0; i < 5; i++) await t.call("POST", CM, { body: configMap(`cmp-${i}`) });
    const current = Number((await t.call("GET", CM)).json.metadata.resourceVersion);
    await t.plane.storage.compact(current - 1);
    const w = await openWatch(`${CM}?watch=true&resourceVersion=2`);
    const { events, ended } = await w.untilEnd();
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired" } });
  });

  it("rejects sendInitialEvents without resourceVersionMatch=NotOlderThan", async () => {
    const r = await t.call("GET", `${CM}?watch=true&sendInitialEvents=true`);
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("Invalid");
  });

  it("implements WatchList: initial ADDED events, then a BOOKMARK marked initial-events-end", async () => {
    await t.call("POST", "/api/v1/namespaces/kube-node-lease/configmaps", { body: configMap("wl") });
    const w = await openWatch(
      "/api/v1/namespaces/kube-node-lease/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    );
    const events = await w.next(2);
    expect(events[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: "wl" } } });
    expect(events[1].type).toBe("BOOKMARK");
    expect(events[1].object.metadata.annotations["k8s.io/initial-events-end"]).toBe("true");
    w.close();
  });

  it("every event line is newline-terminated JSON", async () => {
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    const w = await openWatch(`${CM}?watch=true&resourceVersion=${rv}`);
    await t.call("POST", CM, { body: configMap("nl1") });
    await t.call("POST", CM, { body: configMap("nl2") });
    await w.next(2);
    expect(w.rawLines).toHaveLength(2);
    w.close();
  });
});

describe("watch framing", () => {
  /** The chunks of a watch's chunked body, read off a raw socket until `count` chunks arrived. */
  async function rawChunks(path: string, accept: string, count: number, act: () => Promise<void>): Promise<Buffer[]> {
    const { port } = new URL(t.url);
    const socket = connect(Number(port), "127.0.0.1");
    let received = Buffer.alloc(0);
    const chunks: Buffer[] = [];
    let headerEnd = -1;
    let waiting: (() => void) | undefined;
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      if (headerEnd < 0) {
        headerEnd = received.indexOf("\r\n\r\n");
        if (headerEnd < 0) return;
        received = received.subarray(headerEnd + 4);
      }
      for (;;) {
        const lineEnd = received.indexOf("\r\n");
        if (lineEnd < 0) break;
        const size = parseInt(received.subarray(0, lineEnd).toString("latin1"), 16);
        if (received.length < lineEnd + 2 + size + 2) break;
        chunks.push(received.subarray(lineEnd + 2, lineEnd + 2 + size));
        expect(received.subarray(lineEnd + 2 + size, lineEnd + 4 + size).toString("latin1")).toBe("\r\n");
        received = received.subarray(lineEnd + 4 + size);
      }
      waiting?.();
    });
    const headersSent = new Promise<void>((resolve) => {
      waiting = () => {
        if (headerEnd >= 0) resolve();
      };
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ${accept}\r\n\r\n`);
    await headersSent;
    await act();
    const deadline = Date.now() + 5000;
    while (chunks.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    return chunks;
  }

  it("sends each PartialObjectMetadata event of a metadata watch as one chunk sized in UTF-8 bytes", async () => {
    const rv = (await t.call("GET", CM)).json.metadata.resourceVersion;
    const chunks = await rawChunks(
      `${CM}?watch=true&resourceVersion=${rv}`,
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
      2,
      async () => {
        await t.call("POST", CM, { body: { ...configMap("framed"), metadata: { name: "framed", annotations: { note: "grüße ✓" } } } });
        await t.call("DELETE", `${CM}/framed`);
      },
    );
    expect(chunks).toHaveLength(2);
    const events = chunks.map((chunk) => {
      const text = chunk.toString("utf8");
      expect(text.indexOf("\n")).toBe(text.length - 1);
      return JSON.parse(text);
    });
    expect(events.map((event) => [event.type, event.object.kind, event.object.apiVersion, event.object.metadata.annotations.note])).toEqual(
      [
        ["ADDED", "PartialObjectMetadata", "meta.k8s.io/v1", "grüße ✓"],
        ["DELETED", "PartialObjectMetadata", "meta.k8s.io/v1", "grüße ✓"],
      ],
    );
    expect(events[0].object.data).toBeUndefined();
  });
});

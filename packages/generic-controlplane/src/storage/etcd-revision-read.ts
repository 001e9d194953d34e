import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/**
 * The gateway did not answer this read: gRPC has to. `notServed`: it never will (its path answered
 * 404 or something that is not etcd's JSON), rather than this connection failing.
 */
export class GatewayUnavailable extends Error {
  readonly notServed: boolean;

  constructor(message: string, notServed: boolean) {
    super(message);
    this.notServed = notServed;
  }
}
/** etcd refused the read (its gRPC status message), as a gRPC call would have been refused. */
export class EtcdRefused extends Error {}

export interface RevisionReadOptions {
  /** A client URL, or `host:port` (then `https` with `tls`, `http` without). */
  endpoint: string;
  /** The key counted; only the response header's revision is used. */
  key: Buffer;
  tls?: { ca: Buffer | string; cert?: Buffer | string; key?: Buffer | string } | undefined;
  timeoutMs: number;
}

/**
 * etcd's current revision, read as a linearizable `count_only` range of one key (what the gRPC
 * client would send) through etcd's JSON gateway, `POST /v3/kv/range` on the same client port,
 * over kept-alive HTTP/1.1. The watch cache reads the revision for every few GETs; through the
 * `etcd3` gRPC client each read leaves 7-10 KB (its `@grpc/grpc-js` call and `node:http2` stream
 * state) that survives young-generation collections until a full one, so at 2,000 reads a second
 * every scavenge copied 7-9 MB and paused the process for 12-40 ms. A read through the gateway
 * leaves almost nothing: a few KB survive a scavenge, which takes under a millisecond.
 */
export class RevisionReader {
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly send: (options: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest;
  private readonly body: string;
  private readonly timeoutMs: number;

  constructor(options: RevisionReadOptions) {
    const secure = options.tls !== undefined;
    this.url = new URL(
      "/v3/kv/range",
      options.endpoint.includes("://") ? options.endpoint : `${secure ? "https" : "http"}://${options.endpoint}`,
    );
    const tls = options.tls;
    this.agent =
      this.url.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true, ...(tls === undefined ? {} : { ca: tls.ca, cert: tls.cert, key: tls.key }) })
        : new HttpAgent({ keepAlive: true });
    this.send = this.url.protocol === "https:" ? httpsRequest : httpRequest;
    this.body = JSON.stringify({ key: options.key.toString("base64"), count_only: true });
    this.timeoutMs = options.timeoutMs;
  }

  /**
   * The revision; rejects with `GatewayUnavailable` when the gateway does not serve the read (its
   * path answers 404 or something that is not etcd's JSON, or the connection failed), with
   * `EtcdRefused` carrying etcd's message when etcd refused it, and with a plain Error on timeout.
   */
  read(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const request = this.send(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: "POST",
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(this.body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", (error) => reject(new GatewayUnavailable(error.message, false)));
          response.on("end", () => {
            const answer = parse(Buffer.concat(chunks).toString("utf8"));
            const revision = answer?.header?.revision;
            if (response.statusCode === 200 && revision !== undefined && /^[0-9]+$/.test(String(revision))) resolve(Number(revision));
            else if (response.statusCode !== 404 && typeof answer?.message === "string") reject(new EtcdRefused(answer.message));
            else reject(new GatewayUnavailable(`etcd gateway answered ${response.statusCode}`, true));
          });
        },
      );
      let timedOut = false;
      request.on("timeout", () => {
        timedOut = true;
        request.destroy(new Error(`etcd revision read took longer than ${this.timeoutMs} ms`));
      });
      request.on("error", (error) => reject(timedOut ? error : new GatewayUnavailable(error.message, false)));
      request.end(this.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

interface RangeAnswer {
  header?: { revision?: string | number };
  message?: unknown;
}

function parse(text: string): RangeAnswer | undefined {
  try {
    const value = JSON.parse(text) as RangeAnswer | null;
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

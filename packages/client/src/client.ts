import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { urlToHttpOptions } from "node:url";
import type { DeleteOptions, KubeList, KubeObject, Status, WatchEvent } from "./types.js";
import { ExecCredentialProvider, type ExecCredential } from "./exec-credential.js";
import type { ClientConfig } from "./kubeconfig.js";
import { parseExactJson } from "./exact-json.js";
import { proxyAgent } from "./proxy-agent.js";
import type { Transport, TransportResponse } from "./transport.js";

/** One served resource type, as discovery names it. */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural resource name, e.g. `configmaps`. */
  resource: string;
  namespaced: boolean;
}

/** A non-2xx answer. `status` is the server's `Status` body when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly status?: Status,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function isApiError(error: unknown, reason?: string): error is ApiError {
  return error instanceof ApiError && (reason === undefined || error.reason === reason);
}

export const isNotFound = (error: unknown): boolean => isApiError(error) && error.code === 404;
export const isConflict = (error: unknown): boolean => isApiError(error) && error.code === 409;
/** 410 Gone: a resourceVersion older than the server keeps. */
export const isGone = (error: unknown): boolean => isApiError(error) && error.code === 410;

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestInit {
  query?: Query;
  /** `Accept` (default `application/json`), e.g. for PartialObjectMetadata. */
  accept?: string;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export interface WatchHandle {
  /** Ends the watch; `done` then resolves. */
  stop(): void;
  /** Resolves when the stream ends (server closed it, `stop`, or a dropped connection). */
  readonly done: Promise<void>;
}

/** How a `KubeClient` reaches its server, beyond what its `ClientConfig` says. */
export interface KubeClientOptions {
  /**
   * Sends every request through this instead of connecting to `config.server` with `node:http(s)`
   * (whose path prefix and host still shape each request). Requests, watches, credentials (exec
   * plugins too) and errors behave as over HTTP.
   */
  transport?: Transport;
}

/** Accept headers asking for metadata only (what kube-apiserver serves metadata informers). */
export const ACCEPT_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
export const ACCEPT_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

export const PATCH_MERGE = "application/merge-patch+json";
export const PATCH_JSON = "application/json-patch+json";
export const PATCH_STRATEGIC = "application/strategic-merge-patch+json";

/** Path of a resource collection or, with `name`, of one object. */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  let path = ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (ref.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}

/**
 * A small JSON client for any kube-compatible API server: CRUD, patch, list and watch over
 * HTTP(S) with the credentials of a kubeconfig context. Objects stay plain JSON.
 */
export class KubeClient {
  readonly config: ClientConfig;
  readonly #base: URL;
  /** Where every request goes (protocol, host, port, userinfo), as Node reads them from the server URL. */
  readonly #endpoint: Pick<ReturnType<typeof urlToHttpOptions>, "protocol" | "hostname" | "port" | "auth">;
  /** The server URL's path without its trailing slash, prefixed to every request path. */
  readonly #basePath: string;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  readonly #exec: ExecCredentialProvider | undefined;
  /** Agents for client certificates a credential plugin returned, by certificate. */
  readonly #certificateAgents = new Map<string, HttpAgent>();
  readonly #transport: Transport | undefined;

  constructor(config: ClientConfig | string, options: KubeClientOptions = {}) {
    this.config = typeof config === "string" ? { server: config.replace(/\/+$/, "") } : config;
    this.#base = new URL(this.config.server);
    const { protocol, hostname, port, auth } = urlToHttpOptions(this.#base);
    this.#endpoint = { protocol, hostname, ...(port !== undefined ? { port } : {}), ...(auth !== undefined ? { auth } : {}) };
    this.#basePath = this.#base.pathname.replace(/\/$/, "");
    this.#request = this.#base.protocol === "https:" ? httpsRequest : httpRequest;
    this.#agent = this.#newAgent(this.config.cert, this.config.key);
    this.#exec = this.config.exec === undefined ? undefined : new ExecCredentialProvider(this.config.exec);
    this.#transport = options.transport;
  }

  #newAgent(cert: string | undefined, key: string | undefined): HttpAgent {
    const https = this.#base.protocol === "https:";
    const tls = {
      ...(this.config.ca !== undefined ? { ca: this.config.ca } : {}),
      ...(cert !== undefined ? { cert } : {}),
      ...(key !== undefined ? { key } : {}),
      ...(this.config.tlsServerName !== undefined ? { servername: this.config.tlsServerName } : {}),
      rejectUnauthorized: this.config.insecureSkipTLSVerify !== true,
    };
    if (this.config.proxyUrl !== undefined) return proxyAgent(this.config.proxyUrl, https, tls);
    return https ? new HttpsAgent({ keepAlive: true, ...tls }) : new HttpAgent({ keepAlive: true });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.#agent.destroy();
    for (const agent of this.#certificateAgents.values()) agent.destroy();
  }

  async get<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.request("GET", resourcePath(ref, namespace, name), signal ? { signal } : {})) as T;
  }

  async list<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace?: string,
    query: Query = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    return (await this.request("GET", resourcePath(ref, namespace), { query, ...(signal ? { signal } : {}) })) as KubeList<T>;
  }

  async create<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    object: KubeObject,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.request("POST", resourcePath(ref, namespace), { body: object, ...(signal ? { signal } : {}) })) as T;
  }

  async update<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    object: KubeObject,
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.request("PUT", resourcePath(ref, namespace, object.metadata?.name ?? "", subresource), {
      body: object,
      ...(signal ? { signal } : {}),
    })) as T;
  }

  async patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    contentType = PATCH_MERGE,
    subresource?: string,
  ): Promise<T> {
    return (await this.request("PATCH", resourcePath(ref, namespace, name, subresource), { body: patch, contentType })) as T;
  }

  /** DELETE; resolves to the server's answer (the object while finalizers hold it, else a Status or the last state). */
  async delete(ref: ResourceRef, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject> {
    return (await this.request("DELETE", resourcePath(ref, namespace, name), {
      body: { apiVersion: "v1", kind: "DeleteOptions", ...options },
    })) as KubeObject;
  }

  async deleteCollection(
    ref: ResourceRef,
    namespace: string | undefined,
    options: DeleteOptions = {},
    query: Query = {},
  ): Promise<KubeObject> {
    return (await this.request("DELETE", resourcePath(ref, namespace), {
      query,
      body: { apiVersion: "v1", kind: "DeleteOptions", ...options },
    })) as KubeObject;
  }

  /** Any JSON request; non-2xx answers reject with `ApiError`. */
  async request(method: string, path: string, init: RequestInit = {}): Promise<unknown> {
    const res = await this.#send(method, path, init);
    const text = await readAll(res.body);
    const code = res.statusCode;
    const body = parseJson(text);
    if (code < 200 || code > 299) throw toApiError(code, body, text, method, path);
    return body;
  }

  /**
   * Streams watch events of `path` (a collection) to `onEvent` until the server ends the stream or
   * `stop()`. A non-2xx answer rejects with `ApiError`; a dropped connection just ends `done`.
   */
  async watch(path: string, query: Query, onEvent: (event: WatchEvent) => void, accept?: string): Promise<WatchHandle> {
    const { statusCode: code, body: res } = await this.#send("GET", path, {
      query: { ...query, watch: true },
      ...(accept !== undefined ? { accept } : {}),
    });
    if (code < 200 || code > 299) {
      const text = await readAll(res);
      throw toApiError(code, parseJson(text), text, "GET", path);
    }
    res.setEncoding("utf8");
    let stopped = false;
    let closed = false;
    const done = new Promise<void>((resolve) => {
      let buffered = "";
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while (!stopped && (newline = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line === "") continue;
          const event = parseJson(line) as WatchEvent | undefined;
          if (event !== undefined) onEvent(event);
        }
      });
      res.once("close", () => {
        closed = true;
        resolve();
      });
      res.on("error", () => resolve());
    });
    return {
      stop: () => {
        stopped = true;
        // Destroying without an error: the connection closes and nothing reports a failure.
        if (!closed) res.destroy();
      },
      done,
    };
  }

  async #send(method: string, path: string, init: RequestInit): Promise<TransportResponse> {
    const credential = this.#exec === undefined ? undefined : await this.#exec.get();
    const res = await this.#sendWith(credential, method, path, init);
    // As client-go's exec authenticator: a refused plugin credential is run for again next time.
    if (credential !== undefined && res.statusCode === 401) this.#exec!.invalidate(credential);
    return res;
  }

  #agentFor(credential: ExecCredential | undefined): HttpAgent {
    if (credential?.cert === undefined || credential.key === undefined) return this.#agent;
    let agent = this.#certificateAgents.get(credential.cert);
    if (agent === undefined) {
      for (const old of this.#certificateAgents.values()) old.destroy();
      this.#certificateAgents.clear();
      agent = this.#newAgent(credential.cert, credential.key);
      this.#certificateAgents.set(credential.cert, agent);
    }
    return agent;
  }

  /**
   * The request target (path and query) of `path` on the server, as the WHATWG URL of the two
   * would give it; paths that need no normalising (every path `resourcePath` builds) skip the URL
   * parser, which cost as much as a tenth of a small request's CPU; any other is resolved by it.
   */
  #target(path: string, query: Query | undefined): string | URL {
    let search = "";
    if (query !== undefined) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
      if (params.size > 0) search = `?${params.toString()}`;
    }
    const joined = this.#basePath + path;
    if (VERBATIM_PATH.test(joined) && !DOT_SEGMENT.test(joined)) return joined + search;
    const url = new URL(joined, this.#base);
    if (search !== "") for (const [key, value] of new URLSearchParams(search)) url.searchParams.set(key, value);
    return url;
  }

  #sendWith(credential: ExecCredential | undefined, method: string, path: string, init: RequestInit): Promise<TransportResponse> {
    const target = this.#target(path, init.query);
    const headers: Record<string, string> = { Accept: init.accept ?? "application/json" };
    if (this.config.userAgent !== undefined) headers["User-Agent"] = this.config.userAgent;
    const token = credential?.token ?? this.config.token;
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    else if (this.config.username !== undefined)
      headers.Authorization = `Basic ${Buffer.from(`${this.config.username}:${this.config.password ?? ""}`).toString("base64")}`;
    let payload: string | undefined;
    if (init.body !== undefined) {
      payload = JSON.stringify(init.body);
      headers["Content-Type"] = init.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    if (this.#transport !== undefined) {
      // What node:http would add to the request line's target and headers.
      headers.Host = this.#base.host;
      const auth = this.#endpoint.auth;
      if (typeof auth === "string" && headers.Authorization === undefined)
        headers.Authorization = `Basic ${Buffer.from(auth).toString("base64")}`;
      return this.#transport({
        method,
        target: typeof target === "string" ? target : target.pathname + target.search,
        headers,
        ...(payload !== undefined ? { body: Buffer.from(payload) } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    }
    return new Promise((resolve, reject) => {
      const options = { method, headers, agent: this.#agentFor(credential), ...(init.signal ? { signal: init.signal } : {}) };
      const answered = (res: IncomingMessage): void => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      const req =
        typeof target === "string"
          ? this.#request({ ...this.#endpoint, path: target, ...options }, answered)
          : this.#request(target, options, answered);
      req.on("error", reject);
      req.end(payload);
    });
  }
}

/**
 * A path a URL would take as it stands: no characters it percent-encodes, no query or fragment,
 * no empty segment (a leading `//` would name a host) and no dot segment for it to resolve.
 */
const VERBATIM_PATH = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@%]+\/)*[A-Za-z0-9\-._~!$&'()*+,;=:@%]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

function readAll(res: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.once("error", reject);
  });
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}

function toApiError(code: number, body: unknown, text: string, method: string, path: string): ApiError {
  const status = body as Status | undefined;
  if (status?.kind === "Status") return new ApiError(code, status.reason ?? "", status.message ?? `${method} ${path}: ${code}`, status);
  return new ApiError(code, "", `${method} ${path}: ${code} ${text.slice(0, 200)}`);
}

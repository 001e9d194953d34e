import type { KubeObject, WatchEvent } from "../../src/index.js";

/** A decoded HTTP answer: status code, headers and the JSON body (undefined when not JSON). */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type Body = unknown;

/**
 * A thin fetch wrapper for the ported Conformance assertions: the upstream tests drive the API
 * through client-go's REST client, which is exactly HTTP + JSON, so these tests do the same.
 */
export class KubeHttp {
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: Body; contentType?: string; accept?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { accept: options.accept ?? "application/json", ...options.headers };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["content-type"] = options.contentType ?? "application/json";
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body: payload ?? null });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body: body as T, text };
  }

  get<T = KubeObject & Record<string, unknown>>(path: string, accept?: string) {
    return this.request<T>("GET", path, accept === undefined ? {} : { accept });
  }
  post<T = KubeObject & Record<string, unknown>>(path: string, body: Body) {
    return this.request<T>("POST", path, { body });
  }
  put<T = KubeObject & Record<string, unknown>>(path: string, body: Body) {
    return this.request<T>("PUT", path, { body });
  }
  patch<T = KubeObject & Record<string, unknown>>(path: string, body: Body, contentType: string) {
    return this.request<T>("PATCH", path, { body, contentType });
  }
  delete<T = KubeObject & Record<string, unknown>>(path: string, body?: Body) {
    return this.request<T>("DELETE", path, body === undefined ? {} : { body });
  }

  /** Opens a watch (`watch=true` is added) and returns a reader of its line-delimited events. */
  async watch(path: string): Promise<WatchStream> {
    const controller = new AbortController();
    const separator = path.includes("?") ? "&" : "?";
    const response = await fetch(`${this.baseUrl}${path}${separator}watch=true`, {
      headers: { accept: "application/json" },
      signal: controller.signal,
    });
    if (response.status !== 200 || !response.body) {
      const text = await response.text();
      controller.abort();
      throw new Error(`watch ${path} answered ${response.status}: ${text}`);
    }
    return new WatchStream(response.body, controller);
  }
}

/** Thrown by `WatchStream.next` when no event arrived in time; the stream itself is still healthy. */
export class WatchQuiet extends Error {
  constructor(timeoutMs: number) {
    super(`no watch event within ${timeoutMs} ms`);
    this.name = "WatchQuiet";
  }
}

/** Reads `{"type","object"}` lines from a watch response, one event at a time. */
export class WatchStream {
  private buffer = "";
  private readonly queue: WatchEvent[] = [];
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly controller: AbortController,
  ) {
    void this.pump(body);
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = this.buffer.indexOf("\n")) >= 0) {
          const line = this.buffer.slice(0, newline).trim();
          this.buffer = this.buffer.slice(newline + 1);
          if (line) this.queue.push(JSON.parse(line) as WatchEvent);
        }
        this.wake?.();
      }
      if (this.buffer.trim()) throw new Error(`watch stream ended inside an event: ${this.buffer.slice(0, 200)}`);
    } catch (error) {
      if (!this.controller.signal.aborted) this.failure = error;
    }
    this.ended = true;
    this.wake?.();
  }

  /** True once the server closed the stream (after the queued events are read). */
  get closed(): boolean {
    return this.ended && this.queue.length === 0;
  }

  /**
   * The next event. Rejects with `WatchQuiet` after `timeoutMs`, and with a plain error when the
   * stream broke or the server ended it first.
   */
  async next(timeoutMs = 5_000): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.queue.shift();
      if (event) return event;
      if (this.failure) throw new Error("watch stream failed", { cause: this.failure });
      if (this.ended) throw new Error("watch stream ended");
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WatchQuiet(timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Reads exactly `count` events. */
  async take(count: number, timeoutMs = 5_000): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    while (events.length < count) events.push(await this.next(timeoutMs));
    return events;
  }

  /**
   * Collects what arrives within `ms` of quiet (expected to be nothing). A stream that broke or
   * was closed by the server is not quiet: it rejects, so a dead watch cannot pass for an idle one.
   */
  async drain(ms: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for (;;) {
      try {
        events.push(await this.next(ms));
      } catch (error) {
        if (error instanceof WatchQuiet) return events;
        throw error;
      }
    }
  }

  /** Waits for the server to end the stream, returning the events that came before. */
  async untilClosed(timeoutMs = 10_000): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      try {
        events.push(await this.next(Math.max(1, deadline - Date.now())));
      } catch (error) {
        if (this.closed && !this.failure) break;
        throw error;
      }
    }
    return events;
  }

  close(): void {
    this.controller.abort();
  }
}

export const strategicMergePatch = "application/strategic-merge-patch+json";
export const mergePatch = "application/merge-patch+json";
export const jsonPatch = "application/json-patch+json";

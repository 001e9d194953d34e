import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEtcdStorage, type EtcdStorageOptions } from "../../src/storage/etcd.js";
import type { Storage } from "../../src/storage/types.js";

/**
 * A real etcd (Debian's `etcd-server`) on 127.0.0.1, one member, its data in a temp dir that goes
 * away with it. A missing binary is an error, never a skip: CI installs it (`.ci/run`).
 */
export interface EtcdProcess {
  /** The client URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  readonly process: ChildProcess;
  /** With `tls`: the CA and a client certificate etcd accepts (PEM). */
  readonly clientTls?: { ca: string; cert: string; key: string };
  /** SIGKILLs the member and removes its data (idempotent). */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A CA, a serving certificate for 127.0.0.1 and a client certificate, made with the openssl CLI
 * (test fixtures only; the library itself never makes certificates).
 */
function makeCertificates(dir: string): { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string } {
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=etcd-ca",
    "-keyout",
    at("ca.key"),
    "-out",
    at("ca.crt"),
  );
  for (const [name, subject, extensions] of [
    ["server", "/CN=etcd", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth"],
    ["client", "/CN=kube-apiserver", "extendedKeyUsage=clientAuth"],
  ] as const) {
    openssl(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      subject,
      "-keyout",
      at(`${name}.key`),
      "-out",
      at(`${name}.csr`),
    );
    const ext = at(`${name}.ext`);
    writeFileSync(ext, `${extensions}\n`);
    openssl(
      "x509",
      "-req",
      "-in",
      at(`${name}.csr`),
      "-CA",
      at("ca.crt"),
      "-CAkey",
      at("ca.key"),
      "-CAcreateserial",
      "-days",
      "1",
      "-extfile",
      ext,
      "-out",
      at(`${name}.crt`),
    );
  }
  return {
    ca: at("ca.crt"),
    serverCert: at("server.crt"),
    serverKey: at("server.key"),
    clientCert: at("client.crt"),
    clientKey: at("client.key"),
  };
}

export interface EtcdStartOptions {
  tls?: boolean;
  timeoutMs?: number;
  /** etcd's `--max-request-bytes` (default 1.5 MiB): larger requests are refused. */
  maxRequestBytes?: number;
  /** etcd's `--enable-grpc-gateway` (default true): the JSON API under `/v3/` on the client port. */
  grpcGateway?: boolean;
}

/**
 * `tls`: clients must speak TLS and present a certificate signed by the member's CA. The ports are
 * picked free just before etcd binds them, so another process may take one in between: then etcd
 * exits with "address already in use" and a new pair is tried.
 */
export async function startEtcd(options: EtcdStartOptions = {}): Promise<EtcdProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(options);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof Error && error.message.includes("address already in use"))) throw error;
    }
  }
}

async function startEtcdOnce(options: EtcdStartOptions): Promise<EtcdProcess> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const dir = mkdtempSync(join(tmpdir(), "kubekit-etcd-"));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const certificates = options.tls === true ? makeCertificates(dir) : undefined;
  const endpoint = `${certificates === undefined ? "http" : "https"}://127.0.0.1:${clientPort}`;
  const clientTls =
    certificates === undefined
      ? undefined
      : {
          ca: readFileSync(certificates.ca, "utf8"),
          cert: readFileSync(certificates.clientCert, "utf8"),
          key: readFileSync(certificates.clientKey, "utf8"),
        };
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    "etcd",
    [
      "--name",
      "default",
      "--data-dir",
      join(dir, "data"),
      "--listen-client-urls",
      endpoint,
      "--advertise-client-urls",
      endpoint,
      "--listen-peer-urls",
      peer,
      "--initial-advertise-peer-urls",
      peer,
      "--initial-cluster",
      `default=${peer}`,
      // A one-member cluster elects itself after one election timeout; keep it short for tests.
      "--heartbeat-interval",
      "10",
      "--election-timeout",
      "50",
      "--log-level",
      "error",
      ...(options.maxRequestBytes === undefined ? [] : ["--max-request-bytes", String(options.maxRequestBytes)]),
      ...(options.grpcGateway === false ? ["--enable-grpc-gateway=false"] : []),
      ...(certificates === undefined
        ? []
        : [
            "--cert-file",
            certificates.serverCert,
            "--key-file",
            certificates.serverKey,
            "--client-cert-auth",
            "--trusted-ca-file",
            certificates.ca,
          ]),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (error) =>
      reject(
        new Error(
          `etcd (Debian's etcd-server) is required by these tests and could not be started: ${error.message}. CI installs it (.ci/run).`,
        ),
      ),
    ),
  );
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      spawnError,
      waitHealthy(
        endpoint,
        clientTls,
        timeoutMs,
        () => stderr,
        () => child.exitCode,
      ),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, process: child, stop, ...(clientTls === undefined ? {} : { clientTls }) };
}

/** etcd's `/health` answers `{"health":"true"}` once the member has a leader and serves requests. */
async function waitHealthy(
  endpoint: string,
  tls: EtcdProcess["clientTls"],
  timeoutMs: number,
  stderr: () => string,
  exitCode: () => number | null,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode() !== null) throw new Error(`etcd exited with code ${exitCode()}: ${stderr()}`);
    try {
      const body = JSON.parse(
        tls === undefined
          ? await (await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) })).text()
          : await httpsHealth(endpoint, tls),
      ) as { health?: string };
      if (body.health === "true") return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${endpoint} was not healthy within ${timeoutMs} ms: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A Storage on a fresh etcd member of its own; closing the storage stops the member. */
export async function startEtcdStorage(options: Omit<EtcdStorageOptions, "endpoints"> = {}): Promise<Storage & { etcd: EtcdProcess }> {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ ...options, endpoints: [etcd.endpoint] });
  const close = storage.close.bind(storage);
  storage.close = async () => {
    try {
      await close();
    } finally {
      await etcd.stop();
    }
  };
  return Object.assign(storage, { etcd });
}

function httpsHealth(endpoint: string, tls: NonNullable<EtcdProcess["clientTls"]>): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpsGet(`${endpoint}/health`, { ...tls, timeout: 1000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(body));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}

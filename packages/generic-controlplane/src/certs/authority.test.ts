import { once } from "node:events";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type PeerCertificate, type TLSSocket } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { certificateHosts, createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "./authority.js";
import { loadOrCreateServingPki } from "./pki.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A TLS server with `serving` that asks for client certificates signed by `ca`; resolves with what it saw of the client. */
async function tlsServer(serving: { cert: string; key: string }, ca: string) {
  const seen: Array<{ authorized: boolean; peer: PeerCertificate }> = [];
  const server = createServer(
    { cert: serving.cert, key: serving.key, ca, requestCert: true, rejectUnauthorized: false },
    (socket: TLSSocket) => {
      seen.push({ authorized: socket.authorized, peer: socket.getPeerCertificate() });
      socket.end("ok");
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

/** Connects with `servername` checked against the certificate, as HTTPS clients do. */
async function handshake(
  port: number,
  options: { ca: string; servername: string; client?: { cert: string; key: string } },
): Promise<string> {
  const socket = connect({ host: "127.0.0.1", port, ca: options.ca, servername: options.servername, ...(options.client ?? {}) });
  socket.on("error", () => undefined);
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  await Promise.race([once(socket, "end"), once(socket, "error").then(([error]) => Promise.reject(error as Error))]);
  return Buffer.concat(chunks).toString();
}

describe("certificate authority", () => {
  it("issues a serving certificate that TLS clients trusting the CA accept for each of its names, and no other", async () => {
    const ca = await createCertificateAuthority("kubernetes");
    const serving = await issueServingCertificate(ca, "kube-apiserver", ["localhost", "127.0.0.1", "::1", "api.example.test"]);
    expect(await certificateHosts(serving.cert)).toEqual(["localhost", "127.0.0.1", "::1", "api.example.test"]);
    const { port } = await tlsServer(serving, ca.cert);
    for (const name of ["localhost", "api.example.test"]) expect(await handshake(port, { ca: ca.cert, servername: name })).toBe("ok");
    await expect(handshake(port, { ca: ca.cert, servername: "other.example.test" })).rejects.toThrow(/altnames/);
    const stranger = await createCertificateAuthority("someone-else");
    await expect(handshake(port, { ca: stranger.cert, servername: "localhost" })).rejects.toThrow(/certificate/);
  });

  it("issues client certificates whose subject carries the user (CN) and groups (O), verified by the server", async () => {
    const ca = await createCertificateAuthority("kubernetes");
    const serving = await issueServingCertificate(ca, "kube-apiserver", ["localhost"]);
    const { port, seen } = await tlsServer(serving, ca.cert);
    const client = await issueClientCertificate(ca, { name: "jane", groups: ["devs", "system:masters"] });
    await handshake(port, { ca: ca.cert, servername: "localhost", client });
    expect(seen[0]!.authorized).toBe(true);
    expect(seen[0]!.peer.subject.CN).toBe("jane");
    expect(seen[0]!.peer.subject.O).toEqual(["devs", "system:masters"]);
    const foreign = await issueClientCertificate(await createCertificateAuthority("other"), { name: "mallory" });
    await handshake(port, { ca: ca.cert, servername: "localhost", client: foreign });
    expect(seen[1]!.authorized).toBe(false);
  });
});

describe("loadOrCreateServingPki", () => {
  it("creates the CA, serving and admin certificates once and reuses them; new names reissue only the serving certificate", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubekit-pki-"));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const first = await loadOrCreateServingPki(join(dir, "pki"));
    expect(await certificateHosts(first.serving.cert)).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect((await stat(join(dir, "pki", "ca.key"))).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateServingPki(join(dir, "pki"));
    expect(again).toEqual(first);
    const widened = await loadOrCreateServingPki(join(dir, "pki"), ["api.example.test"]);
    expect(widened.ca).toEqual(first.ca);
    expect(widened.admin).toEqual(first.admin);
    expect(await certificateHosts(widened.serving.cert)).toContain("api.example.test");
    expect(await readFile(join(dir, "pki", "apiserver.crt"), "utf8")).toBe(widened.serving.cert);
  });
});

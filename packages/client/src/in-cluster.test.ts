import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inClusterConfig, isInCluster } from "./in-cluster.js";

describe("inClusterConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "in-cluster-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "token"), "sa-token\n");
  writeFileSync(join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\n");
  writeFileSync(join(dir, "namespace"), "kube-system");

  it("builds the service's address, the service account's token and CA, and its namespace", async () => {
    const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
    expect(isInCluster(env)).toBe(true);
    expect(await inClusterConfig(env, dir)).toEqual({
      server: "https://10.96.0.1:443",
      token: "sa-token",
      ca: "-----BEGIN CERTIFICATE-----\n",
      namespace: "kube-system",
    });
  });

  it("brackets an IPv6 service address", async () => {
    const config = await inClusterConfig({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "6443" }, dir);
    expect(config.server).toBe("https://[fd00::1]:6443");
  });

  it("says what is missing outside a pod or without a token, as client-go does", async () => {
    expect(isInCluster({ KUBERNETES_SERVICE_HOST: "10.96.0.1" })).toBe(false);
    await expect(inClusterConfig({}, dir)).rejects.toThrow(
      "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined",
    );
    const empty = join(dir, "none");
    await expect(inClusterConfig({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, empty)).rejects.toThrow(
      /no service account token in .*none\/token/,
    );
  });
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadDriver, validateDriver } from "./load.js";

describe("loadDriver", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-load-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loads a module's default export, calling a factory with the kubeconfig", async () => {
    const file = join(dir, "driver.mjs");
    await writeFile(
      file,
      "export default ({ kubeconfig }) => ({ name: 'mod:' + kubeconfig, capabilities: { loadBalancer: true }, async deleteInstance() {} });\n",
    );
    const driver = await loadDriver(file, { kubeconfig: "/kc" });
    expect(driver.name).toBe("mod:/kc");
    expect(driver.capabilities).toEqual({ loadBalancer: true });
    expect(typeof driver.deleteInstance).toBe("function");
  });

  it("loads a YAML file by its extension", async () => {
    const file = join(dir, "driver.yaml");
    await writeFile(file, "name: from-yaml\ncapabilities:\n  udp: true\n");
    expect((await loadDriver(file, { kubeconfig: "/kc" })).name).toBe("from-yaml");
  });

  it("rejects a module with a misspelt hook, naming the file and the field", async () => {
    const file = join(dir, "bad.mjs");
    await writeFile(file, "export const driver = { name: 'x', capabilities: {}, deleteInstnace() {} };\n");
    await expect(loadDriver(file, { kubeconfig: "/kc" })).rejects.toThrow(`${file}: deleteInstnace: unknown field "deleteInstnace"`);
  });

  it("rejects a module that exports no driver", async () => {
    const file = join(dir, "none.mjs");
    await writeFile(file, "export const x = 1;\n");
    await expect(loadDriver(file, { kubeconfig: "/kc" })).rejects.toThrow("exports no driver");
  });
});

describe("validateDriver", () => {
  it("checks traffic clients and hook types", () => {
    expect(() => validateDriver({ name: "x", capabilities: {}, external: { httpGet() {} } })).toThrow(
      "driver: external: must have httpGet and udpExchange functions",
    );
    expect(() => validateDriver({ name: "x", capabilities: {}, setup: "echo" })).toThrow("driver: setup:");
    expect(() => validateDriver({ name: "x", capabilities: { ipMode: "Direct" } })).toThrow("driver: capabilities.ipMode:");
  });
});

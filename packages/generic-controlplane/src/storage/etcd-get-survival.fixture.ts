/**
 * Child process for the young-generation survival test: given an etcd client URL as argv[2], makes
 * one key and then reads it `argv[3]` times, one GET after another (each waits for a revision read
 * of its own), printing `start` and `end` around the timed GETs, so the parent can add up what its
 * `--trace-gc-nvp` scavenges promoted in between. Runs from source (see run-from-source.ts).
 */

await import(new URL("../run-from-source.ts", import.meta.url).href);

const { createEtcdStorage } = await import("./etcd.js");
const endpoint = process.argv[2]!;
const gets = Number(process.argv[3]);
const storage = createEtcdStorage({ endpoints: [endpoint], compactInterval: 0 });
await storage.create("/registry/configmaps/ns/a", "v");
for (let i = 0; i < 300; i++) await storage.get("/registry/configmaps/ns/a");
console.log("start");
for (let i = 0; i < gets; i++) {
  if ((await storage.get("/registry/configmaps/ns/a"))?.value !== "v") throw new Error("the GET did not answer the stored value");
}
console.log("end");
await storage.close();

import { startTestPlane } from "@kubekit/generic-controlplane/testing";

/*
 * A control plane in its own process, as the API server is in a cluster: prints its URL, and
 * closes when its standard input ends (the benchmark exited or closed it).
 */

const plane = await startTestPlane();
console.log(plane.url);
process.stdin.resume();
process.stdin.on("end", () => void plane.close().then(() => process.exit(0)));

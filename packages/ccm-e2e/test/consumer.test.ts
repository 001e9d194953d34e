import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, @kubekit/client, @kubekit/apimachinery with re2js (Ginkgo's RE2 patterns), commander, yaml and zod: no API server.
// 10.0 MiB measured once apimachinery read IPs itself and the client built request paths without a URL
// (9.4 MiB when the budget was set); the budget is there to catch a heavy dependency, not kilobytes.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 7, mib: 10.5 } });

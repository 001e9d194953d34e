import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, @kubekit/client, @kubekit/apimachinery with re2js (Ginkgo's RE2 patterns), commander, yaml and zod: no API server.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 7, mib: 10 } });

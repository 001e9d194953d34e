import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, @kubekit/client (with @kubekit/apimachinery), commander, yaml and zod: no API server.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 6, mib: 10 } });

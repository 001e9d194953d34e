import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, @kubekit/client, commander, yaml and zod: no API server.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 5, mib: 10 } });

import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself and yaml.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 2, mib: 2 } });

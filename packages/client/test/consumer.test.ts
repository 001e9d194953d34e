import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

describeConsumer(join(import.meta.dirname, ".."));

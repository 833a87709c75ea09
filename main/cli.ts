#!/usr/bin/env node
// The `switchyard` bin (package.json "bin": dist/main/cli.js). The CLI itself lives in main/cli/.
import { main } from "./cli/main.js";

void main();

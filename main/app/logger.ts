// One logger, redacting credentials by default (DESIGN.md habits: a secret never reaches a log).
import { pino, type Logger } from "pino";

export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "*.*.authorization",
  "x-api-key",
  "*.x-api-key",
  "*.*.x-api-key",
  "x-goog-api-key",
  "*.x-goog-api-key",
  "*.*.x-goog-api-key",
  "apiKey",
  "*.apiKey",
  "*.*.apiKey",
  "secret",
  "*.secret",
  "x-omniroute-lease-owner",
  "*.x-omniroute-lease-owner",
  "*.*.x-omniroute-lease-owner",
  "x-omniroute-lease-generation",
  "*.x-omniroute-lease-generation",
  "*.*.x-omniroute-lease-generation",
];

export function createLogger(level = process.env.SWITCHYARD_LOG_LEVEL ?? "info"): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: "[redacted]" } });
}

export type { Logger };

// Command-line and environment options of the desktop app. Pure, so it is tested under Node.
// Chromium and Playwright add switches of their own to argv; anything unknown is ignored.

export const DEFAULT_PORT = 8642; // R0.1

export interface DesktopOptions {
  port: number;
  /** Explicit data dir; undefined = SWITCHYARD_HOME, else Electron's userData (R0.3). */
  home: string | undefined;
  config: string | undefined;
  demo: boolean;
  testClock: boolean;
  /** Start in the tray without showing the window. */
  hidden: boolean;
}

export function parseDesktopArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): DesktopOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (name === "port" || name === "home" || name === "config") {
      const value = eq === -1 ? argv[i + 1] : arg.slice(eq + 1);
      if (value === undefined || (eq === -1 && value.startsWith("--"))) throw new Error(`--${name} needs a value`);
      values.set(name, value);
      if (eq === -1) i += 1;
    } else {
      flags.add(name);
    }
  }
  return {
    port: parsePort(values.get("port") ?? env.SWITCHYARD_PORT),
    home: values.get("home") ?? (env.SWITCHYARD_HOME || undefined),
    config: values.get("config"),
    demo: flags.has("demo"),
    testClock: flags.has("test-clock") || env.SWITCHYARD_TEST_CLOCK === "1",
    hidden: flags.has("hidden"),
  };
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === "") return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`Invalid port: ${raw}`);
  return port;
}

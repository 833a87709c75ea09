// R21.1, R21.2: the client's own login, as one request carries it. It lives in this request's
// memory only: it goes upstream exactly as the client sent it, to a client-login connection of the
// client's own format, and is named everywhere else by its SHA-256 digest (never stored, logged,
// exported or shown). Each distinct login is an account of its own: `<connection>~<12 hex>`.
import { createHash } from "node:crypto";
import type { Connection, WireFormat } from "../../../shared/types.js";
import type { LoginParts } from "../formats/adapter.js";

/**
 * Digests of the logins seen lately: an agent sends the same login on every request, and hashing it
 * each time showed in the login lane's profile. Bounded; the digest is no secret, the key is (it
 * lives in this process only, like the request that carried it).
 */
const DIGESTS = new Map<string, string>();
const DIGESTS_MAX = 256;

function digestOf(credential: string): string {
  let hex = DIGESTS.get(credential);
  if (hex === undefined) {
    hex = createHash("sha256").update(credential).digest("hex");
    if (DIGESTS.size >= DIGESTS_MAX) DIGESTS.clear();
    DIGESTS.set(credential, hex);
  }
  return hex;
}

/** Hex digits of the digest in an account's id, and in its name. */
const ID_HEX = 12;
const NAME_HEX = 6;

export class ClientLogin {
  private hash: string | null = null;

  constructor(
    private readonly parts: LoginParts,
    /** The client's format, which read the login: it may go only to an upstream of that format. */
    readonly format: WireFormat,
  ) {}

  /** Header name → value, to send upstream as they came. */
  get headers(): Readonly<Record<string, string>> {
    return this.parts.headers;
  }

  /** What must never appear in a text Switchyard keeps or shows (an upstream may echo it). */
  get secret(): string {
    return this.parts.credential;
  }

  /** R21.5: an OAuth or ChatGPT-plan login is a subscription account. */
  get subscription(): boolean {
    return this.parts.subscription;
  }

  /** SHA-256 of the credential, hex: the login's only name. Made on first use (most requests never need it). */
  get digest(): string {
    return (this.hash ??= digestOf(this.parts.credential));
  }

  /** The id of this login's account under a client-login connection. */
  accountId(connectionId: string): string {
    return `${connectionId}~${this.digest.slice(0, ID_HEX)}`;
  }

  /** The account's name as every view shows it: `<connection name> · <6 hex of the digest>`. */
  accountName(connectionName: string): string {
    return `${connectionName} · ${this.digest.slice(0, NAME_HEX)}`;
  }
}

/**
 * R24.5: what an account row sets for itself (PATCH /api/connections/<account> takes exactly these):
 * whether it serves, its place among the provider's connections, its budget, and the usage-wall
 * opt-ins with the organization whose limit reset they claim. Each login is a person's own
 * subscription, so these are its own; the rest comes from its client-login connection.
 */
export const ACCOUNT_FIELDS = ["active", "priority", "weight", "budget", "providerSpecificData"] as const;
export const ACCOUNT_PROVIDER_DATA = ["lowPriorityMode", "autoLimitReset", "organizationUUID"] as const;

/**
 * A login's account as the request path sees it: the client-login connection's configuration
 * (limits, cooling, egress: edited once, for every login) with the account's own settings
 * (ACCOUNT_FIELDS, made from the connection's when the login was first seen), id, name and runtime
 * (cooldowns, lockouts, windows are the login's alone). The connection switched off serves no login.
 */
export function accountView(template: Connection, account: Connection): Connection {
  // Both rows keep their identity until a write changes either (the store's read cache), so the
  // view is made once per pair, not once per request.
  const memo = VIEWS.get(account);
  if (memo?.template === template) return memo.view;
  const view = makeView(template, account);
  VIEWS.set(account, { template, view });
  return view;
}

const VIEWS = new WeakMap<Connection, { template: Connection; view: Connection }>();

function makeView(template: Connection, account: Connection): Connection {
  const providerSpecificData: Record<string, unknown> = { ...template.providerSpecificData };
  for (const key of ACCOUNT_PROVIDER_DATA) {
    if (account.providerSpecificData[key] === undefined) delete providerSpecificData[key];
    else providerSpecificData[key] = account.providerSpecificData[key];
  }
  return {
    ...template,
    id: account.id,
    name: account.name,
    accountOf: template.id,
    credential: "client",
    active: template.active && account.active,
    priority: account.priority,
    weight: account.weight,
    budget: account.budget,
    providerSpecificData,
    subscription: account.subscription || template.subscription,
    hasSecret: false,
    testStatus: account.testStatus,
    rateLimitedUntil: account.rateLimitedUntil,
    backoffLevel: account.backoffLevel,
    lastError: account.lastError,
    lastErrorType: account.lastErrorType,
    errorCode: account.errorCode,
    lastErrorAt: account.lastErrorAt,
    authFailureCount: account.authFailureCount,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}

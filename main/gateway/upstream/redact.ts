// Upstream error texts sometimes echo the credential they rejected; it must never reach a client,
// a log line or the Cooldown Manager (DESIGN.md habits).
export function redactSecret(text: string, secret: string | null): string {
  if (!secret || secret.length < 4 || !text.includes(secret)) return text;
  return text.split(secret).join("[redacted]");
}

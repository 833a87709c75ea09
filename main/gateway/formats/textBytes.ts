// Useful output of an upstream event for the throughput watchdog (R13.5) is the UTF-8 bytes of
// its text deltas only; reasoning, tool arguments, usage and lifecycle frames count zero.

const encoder = new TextEncoder();

export function utf8Bytes(text: string | undefined): number {
  return text ? encoder.encode(text).length : 0;
}

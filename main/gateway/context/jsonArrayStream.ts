// Gemini's streamGenerateContent without `alt=sse` answers a JSON array whose elements arrive as
// they are produced: `[{…}`, `,\r\n{…}`, …, `]`. The client formats encode streams as SSE frames;
// this turns those frames into array elements, so every stream rule (holding, watchdogs,
// failover, the error at the end) works the same for both framings.

export class JsonArrayStream {
  private opened = false;

  /** Array text for SSE frames: each frame's data becomes one element. */
  elements(sse: string): string {
    let out = "";
    for (const frame of sse.split("\n\n")) {
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data === "") continue;
      out += (this.opened ? ",\r\n" : "[") + data;
      this.opened = true;
    }
    return out;
  }

  /** What closes the array (an empty one when no element was sent). */
  close(): string {
    return this.opened ? "]" : "[]";
  }
}

// Regenerates the PNG icons of this folder: `node assets/generate-icons.mjs`. The PNGs are
// committed; this script only documents how they were drawn (RGBA, 4x4 supersampled shapes).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** `shade(x, y)` returns [r, g, b, a] (0–255) for a point in pixel units. */
function png(size, shade) {
  const SS = 4;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x += 1) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < SS; sy += 1) {
        for (let sx = 0; sx < SS; sx += 1) {
          const [pr, pg, pb, pa] = shade(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
          r += pr * pa;
          g += pg * pa;
          b += pb * pa;
          a += pa;
        }
      }
      const o = y * (size * 4 + 1) + 1 + x * 4;
      raw[o] = a ? Math.round(r / a) : 0;
      raw[o + 1] = a ? Math.round(g / a) : 0;
      raw[o + 2] = a ? Math.round(b / a) : 0;
      raw[o + 3] = Math.round(a / (SS * SS));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const CLEAR = [0, 0, 0, 0];

function distToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Tray: a status dot with a darker rim, legible at 16 px. */
function trayDot(fill, rim) {
  return (x, y) => {
    const d = Math.hypot(x - 16, y - 16);
    if (d > 14) return CLEAR;
    return [...(d > 11.5 ? hex(rim) : hex(fill)), 255];
  };
}

/** App icon: a blue rounded square with a white railway switch (one track splitting in two). */
function appIcon(x, y) {
  const half = 256,
    radius = 96,
    inner = half - 24;
  const qx = Math.max(Math.abs(x - half) - (inner - radius), 0);
  const qy = Math.max(Math.abs(y - half) - (inner - radius), 0);
  if (Math.hypot(qx, qy) > radius) return CLEAR;
  const track = 26;
  const segments = [
    [
      [198, 420],
      [198, 96],
    ],
    [
      [198, 300],
      [314, 160],
    ],
    [
      [314, 160],
      [314, 96],
    ],
  ];
  if (segments.some(([a, b]) => distToSegment(x, y, a, b) <= track)) return [255, 255, 255, 255];
  return [...hex("#1f5fbf"), 255];
}

const icons = {
  "tray-healthy.png": png(32, trayDot("#34a853", "#1e6b34")),
  "tray-degraded.png": png(32, trayDot("#f2b233", "#9a6b0c")),
  "tray-open.png": png(32, trayDot("#e04646", "#8f1f1f")),
  "icon.png": png(512, appIcon),
};
for (const [name, data] of Object.entries(icons)) writeFileSync(path.join(here, name), data);

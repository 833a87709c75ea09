// Builds the dashboard (renderer/) into dist/renderer, which the headless server serves at `/`
// and the Electron window loads from the same origin. `base: "./"` keeps asset URLs relative so
// the bundle works wherever it is mounted.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  root: "renderer",
  base: "./",
  plugins: [react()],
  build: {
    outDir: "../dist/renderer",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: true,
    // One bundle (about 780 kB), loaded from loopback or from disk: there is no network to split it
    // for, and Vite's "chunks are larger than 500 kB" advice was noise on every first `npm start`.
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // The renderer imports the typed contract from ../shared.
    fs: { allow: [".."] },
  },
});

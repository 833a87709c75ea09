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
  },
  server: {
    // The renderer imports the typed contract from ../shared.
    fs: { allow: [".."] },
  },
});

import preact from "@preact/preset-vite";
import { defineConfig } from "vitest/config";

// The console is built into the Python package (gpuctl/server/console_dist), which
// `gpuctl serve` serves at `/`: hashed file names under assets/ (cached for a year),
// index.html (never cached), and public/'s files at the top as they are (favicon.svg, which
// index.html links, so that no page asks for a missing /favicon.ico). No inline script or
// style: the server's CSP forbids them.
export default defineConfig({
  plugins: [preact({ prefreshEnabled: false, devToolsEnabled: false })],
  base: "/",
  build: {
    outDir: "../gpuctl/server/console_dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});

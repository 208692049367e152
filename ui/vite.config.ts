import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Tauri loads the dev server at http://localhost:5173 (tauri.conf.json `devUrl`) and the
// built files from ui/dist (`frontendDist`).
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  // `vite build --mode profile`: React's profiling renderer, so <Timed> subtrees report their
  // commits (the app bench prints them).
  resolve: mode === "profile" ? { alias: { "react-dom/client": "react-dom/profiling" } } : {},
  clearScreen: false,
  server: {
    host: "localhost",
    port: 5173,
    strictPort: true,
  },
  envPrefix: ["VITE_", "TAURI_ENV_"],
  build: {
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    // codemirror-json-schema imports its own files without extensions; let Vite resolve them.
    server: { deps: { inline: ["codemirror-json-schema"] } },
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/testing/setup.ts"],
    // Above the waits' own limit (src/testing/setup.ts), so a slow wait fails with its message.
    testTimeout: 20_000,
  },
}));

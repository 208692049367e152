import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./App";
import "./styles.css";

// Startup marks, read by the app bench's page timeline (tests/e2e/bench.mjs); a few entries.
performance.mark("toolscope: modules evaluated");

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
